package rnic.model.rdmap;

import java.nio.ByteBuffer;

/**
 * An RDMA Message without an RDMAP header whose DDP payload is ULP payload: {@link TaggedMessage} (RDMA Write, Read
 * Response) and {@link SendMessage} (the Send family); the opcodes with {@code RdmapOpcode.ulpPayload()}.
 */
public sealed interface UlpPayloadMessage extends RdmapMessage permits TaggedMessage, SendMessage {

    /** The ULP payload, possibly empty. */
    byte[] payload();

    @Override
    default int ddpPayloadLength() {
        return payload().length;
    }

    @Override
    default void writeTo(ByteBuffer b) {
        b.put(payload());
    }
}
