package rnic.sim;

import java.lang.reflect.Field;
import spinal.sim.IVerilatorNative;
import spinal.sim.SimRaw;
import spinal.sim.SimVerilator;

/**
 * The Verilator model behind a SpinalSim {@link SimVerilator}: its JNI interface and instance handle.
 *
 * <p>SpinalSim's accessors check ranges and box values on every call, and reject 64-bit values with the top bit set
 * unless given as {@code BigInt}. The harness calls the same JNI entry points directly ({@code getU64/setU64} for up
 * to 64 bits, {@code getAU8/setAU8} octet arrays for wider signals), which is what lets it approach the speed of the
 * raw model. SimVerilator keeps both values in private fields; if a future SpinalHDL renames them, {@link #of}
 * returns {@code null} and {@link SimSignal} falls back to the checked SpinalSim accessors.
 */
final class NativeModel {
    final IVerilatorNative jni;
    final long handle;

    private NativeModel(IVerilatorNative jni, long handle) {
        this.jni = jni;
        this.handle = handle;
    }

    static NativeModel of(SimRaw raw) {
        if (!(raw instanceof SimVerilator)) {
            return null;
        }
        try {
            Field backend = SimVerilator.class.getDeclaredField("backend");
            Field handle = SimVerilator.class.getDeclaredField("handle");
            backend.setAccessible(true);
            handle.setAccessible(true);
            spinal.sim.VerilatorBackend b = (spinal.sim.VerilatorBackend) backend.get(raw);
            return new NativeModel(b.nativeInstance(), handle.getLong(raw));
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("[rnic.sim] warning: direct model access unavailable (" + e
                    + "); using SpinalSim's checked accessors");
            return null;
        }
    }

    boolean eval() {
        return jni.eval(handle);
    }
}
