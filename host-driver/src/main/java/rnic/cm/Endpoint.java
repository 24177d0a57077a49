package rnic.cm;

import rnic.driver.MpaSettings;
import rnic.verbs.QueuePair;
import rnic.wire.WqeOpcode;

/**
 * What the connection manager needs of the queue pair it binds to a connection: its slot in the core (the QP
 * number), its state, and the step into Full Operation. {@link QpEndpoint} is the real one; the unit tests of the
 * connection manager stand a recording one in for a device.
 */
interface Endpoint {
    /** The core's connection slot of this queue pair (its QP number); never shown in the cm API. */
    int slot();

    /** "QP 3", for messages. */
    String describe();

    /** Throws {@link rnic.verbs.WrongStateException} unless the queue pair is in INIT. */
    void requireInit(String what);

    /** Whether a zero-length Send RTR would consume a receive of the driver's own (no application receive posted). */
    boolean canTakeSendRtr();

    /** The largest IRD the device gives a queue pair. */
    int irdLimit();

    /**
     * Programs {@code settings}, INIT→RTR, the RTR message or the receive for one, {@code handOver}, RTR→RTS.
     *
     * @return the MULPDU the core derived
     * @throws rnic.verbs.DeviceException when the core did not enter RTR
     */
    int enterFullOperation(MpaSettings settings, WqeOpcode rtr, boolean receiveSendRtr, rnic.transport.TcpConnection tcp);

    /** Send work requests the core has not completed. */
    int sendOutstanding();

    /** Moves the queue pair to ERR: every request not completed is flushed. */
    void stop();

    /** The queue pair, or null for a test endpoint. */
    QueuePair queuePair();
}
