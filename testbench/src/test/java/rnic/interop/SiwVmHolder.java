package rnic.interop;

import java.io.IOException;

/**
 * The siw VM of one test class: booted on first use, reused while the CRC setting stays the same (a boot takes
 * seconds), rebooted with the other siw module when it changes, and shut down at the end ({@link #close()} in an
 * {@code @AfterAll}). A failed boot throws: the tests fail loudly, none is skipped.
 */
final class SiwVmHolder implements AutoCloseable {
    private SiwVm vm;

    /** The running VM with {@code siw-crc.ko} when {@code crc}, else with siw's defaults. */
    SiwVm get(boolean crc) throws IOException {
        if (vm != null && vm.crcRequired() != crc) {
            vm.close();
            vm = null;
        }
        if (vm == null) {
            vm = SiwVm.start(crc);
        }
        return vm;
    }

    @Override
    public void close() {
        if (vm != null) {
            vm.close();
            vm = null;
        }
    }
}
