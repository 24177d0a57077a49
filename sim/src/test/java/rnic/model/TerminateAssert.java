package rnic.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.function.Executable;
import rnic.model.ddp.TerminateException;
import rnic.wire.TerminateCause;

/**
 * Assertions on error causes against docs/requirements.md §3 as the tables write them: {@code "L/ET/EC MDR"}, e.g.
 * {@code "1/2/01 110"} for Layer 1, EType 2, Error Code 0x01, M=1 D=1 R=0.
 */
public final class TerminateAssert {
    private TerminateAssert() {
    }

    /** Asserts that {@code actual} is {@code expected} and that its wire values are those of {@code table}. */
    public static void assertCause(String table, TerminateCause expected, TerminateCause actual) {
        assertEquals(expected, actual);
        String[] p = table.split("[/ ]");
        String where = expected + " vs " + table;
        assertEquals(Integer.parseInt(p[0], 16), actual.layer().code(), "Layer of " + where);
        assertEquals(Integer.parseInt(p[1], 16), actual.etype(), "EType of " + where);
        assertEquals(Integer.parseInt(p[2], 16), actual.code(), "Error Code of " + where);
        assertEquals(Integer.parseInt(p[0] + p[1], 16), actual.layerEtype(), "Terminate octet 0 of " + where);
        assertEquals(p[3].charAt(0) == '1', actual.m(), "M of " + where);
        assertEquals(p[3].charAt(1) == '1', actual.d(), "D of " + where);
        assertEquals(p[3].charAt(2) == '1', actual.r(), "R of " + where);
    }

    /** Asserts that {@code action} fails with {@code expected}, whose wire values are those of {@code table}. */
    public static TerminateException assertTerminates(String table, TerminateCause expected, Executable action) {
        TerminateException e = assertThrows(TerminateException.class, action);
        assertCause(table, expected, e.cause());
        return e;
    }
}
