package rnic.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The receive-path fuzzer ({@link RxFuzz}, {@code ./rnic fuzz}) with a fixed seed: core b of the two-RNIC model takes
 * 100 000 valid and mutated FPDUs on its four TCP receive ports at once (Markers and CRC on and off per connection)
 * at W = 64 (about 3–5 minutes on the 2-core machine, 6 million cycles). Every oracle is asserted: the run feeds them
 * all without a hang (every round's input taken within the stated bound, the core quiet and its receive path idle
 * again after it), no AXI write outside a region the host granted, host memory equal to the golden
 * {@code RdmapEndpoint}'s (nothing placed after a detected error, nothing missing before it), exactly one Terminate
 * per detected error, octet for octet the golden one, ERR only for the failed QP, no FPDU left unfinished; and the
 * mutations are detected as errors of many causes.
 *
 * <p>Requirements: MPA-23, MPA-25, MPA-42, MPA-44, DDP-18, DDP-27, DDP-31, RDMAP-14, RDMAP-15, RDMAP-17;
 * docs/requirements.md §3.
 */
class RxFuzzTest {
    @Test
    void mutatedTrafficKeepsEveryOracle() {
        long fpdus = 100_000;
        RxFuzz.Report r = RxFuzz.run(new RxFuzz.Options(fpdus, 11, 64, false, Integer.MAX_VALUE));
        System.out.print(r.summary());
        assertTrue(r.fpdus >= fpdus, "ran " + r.fpdus + " of " + fpdus + " FPDUs (a hang stops the run)");
        assertEquals(0, r.violations("hang"), r.summary());
        assertEquals(0, r.violations("write outside a granted region"), r.summary());
        assertEquals(0, r.violationCount(), r.summary());
        assertTrue(r.errors > fpdus / 100, "the mutations were detected as errors: " + r.errors);
        assertTrue(r.causes.size() >= 15, "errors of many causes: " + r.causes.keySet());
    }
}
