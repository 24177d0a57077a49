package rnic.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Memory regions that exist only as objects (no device, never programmed) for tests of argument validation and
 * descriptor encoding: address = buffer address + offset, STag = index << 8 (key 0).
 */
final class Detached {
    private Detached() {
    }

    static MemoryRegion region(long bufferAddress, long offset, long length, Set<Access> access, int index) {
        return new MemoryRegion(null, new DmaBuffer(null, bufferAddress, (int) (offset + length)), offset, length,
                access, null, index);
    }

    static MemoryRegion region() {
        return region(0x10_0000, 0x100, 4096, EnumSet.allOf(Access.class), 5);
    }
}
