package rnic.sim;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * In-order scoreboard: expected items are queued, actual items must match them in order. {@link Tb} checks at the end
 * of every simulation that each registered scoreboard is empty, so a test cannot pass with outputs still missing.
 */
public final class Scoreboard<T> {
    private final String name;
    private final ArrayDeque<T> expected = new ArrayDeque<>();
    private final BiPredicate<T, T> equal;
    private final Function<T, String> show;
    private long matched;

    public Scoreboard(String name) {
        this(name, Objects::equals, String::valueOf);
    }

    public Scoreboard(String name, BiPredicate<T, T> equal, Function<T, String> show) {
        this.name = name;
        this.equal = equal;
        this.show = show;
    }

    /** Queues the next expected item. */
    public void expect(T item) {
        expected.add(item);
    }

    /** Checks an actual item against the oldest expected one. */
    public void actual(T item) {
        T want = expected.poll();
        if (want == null) {
            throw new AssertionError(name + ": unexpected item " + show.apply(item) + " after " + matched
                    + " matched");
        }
        if (!equal.test(want, item)) {
            throw new AssertionError(name + ": item #" + matched + " mismatch: expected " + show.apply(want)
                    + " but got " + show.apply(item) + firstDifference(want, item));
        }
        matched++;
    }

    /**
     * Checks an actual item where expected items may have been lost (a sink allowed to drop, such as a completion
     * queue that overflowed): expected items that {@code mayBeLost} accepts and that do not match are skipped, oldest
     * first, until one matches; an item that may not be lost, or none left, fails as {@link #actual} does.
     *
     * @return the expected items skipped as lost
     */
    public int actualAfterLosses(T item, java.util.function.Predicate<T> mayBeLost) {
        int lost = 0;
        while (!expected.isEmpty() && !equal.test(expected.peek(), item) && mayBeLost.test(expected.peek())) {
            expected.poll();
            lost++;
        }
        actual(item);
        return lost;
    }

    /**
     * Removes every expected item that {@code lost} accepts (items a lossy sink will never deliver).
     *
     * @return how many were removed
     */
    public int discard(java.util.function.Predicate<T> lost) {
        int before = expected.size();
        expected.removeIf(lost);
        return before - expected.size();
    }

    /** For octet arrays, where they first differ and the octets around it. */
    private static String firstDifference(Object want, Object got) {
        if (!(want instanceof byte[] a) || !(got instanceof byte[] b)) {
            return "";
        }
        int i = java.util.Arrays.mismatch(a, b);
        if (i < 0) {
            return "";
        }
        int from = Math.max(0, i - 8);
        java.util.HexFormat hex = java.util.HexFormat.ofDelimiter(" ");
        return "; first difference at octet " + i + ": expected ["
                + hex.formatHex(a, from, Math.min(a.length, i + 8)) + "] got ["
                + hex.formatHex(b, from, Math.min(b.length, i + 8)) + "] (from octet " + from + ")";
    }

    /** Items still expected. */
    public int pending() {
        return expected.size();
    }

    /** Items still expected that {@code match} accepts. */
    public long count(java.util.function.Predicate<T> match) {
        return expected.stream().filter(match).count();
    }

    /** Items matched so far. */
    public long matched() {
        return matched;
    }

    /** Fails when expected items were never seen. */
    public void assertEmpty() {
        if (!expected.isEmpty()) {
            throw new AssertionError(name + ": " + expected.size() + " expected item(s) never seen, next "
                    + show.apply(expected.peek()) + " (" + matched + " matched)");
        }
    }

    public String name() {
        return name;
    }
}
