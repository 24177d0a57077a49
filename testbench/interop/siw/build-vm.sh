#!/usr/bin/env bash
# Builds the Linux soft-iWARP (siw) peer VM from Debian packages only:
#   OUT/vmlinux          the uncompressed kernel of Debian's linux-image-amd64 (boots in ~2 s under TCG;
#                        the bzImage would first decompress itself in emulation)
#   OUT/initrd.cpio.gz   busybox, the kernel's RDMA modules, two out-of-tree siw builds (siw.ko with
#                        siw's defaults, siw-crc.ko with mpa_crc_required = true), rdma-core + rping, init
#   OUT/busybox          a static busybox for the host side (its nc relays the guest's client connections)
#   OUT/stamp            hashes of this script and init: a second run with the same ones does nothing
#   OUT/versions.txt     the Debian package versions the artifacts came from
# Usage: build-vm.sh OUT_DIR        (needs apt-get, dpkg-deb, gcc, make, binutils; no internet but Debian's
#                                    package registry; root only if qemu-system-x86 still has to be installed)
# Every failure stops the script with a message: the caller must not mistake a missing VM for a passing test.
set -euo pipefail

OUT="${1:?usage: build-vm.sh OUT_DIR}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/build.log"
say() { printf '[siw-vm] %s\n' "$*" >&2; }
die() { printf '[siw-vm] error: %s\n' "$*" >&2; exit 1; }

for c in apt-get apt-cache dpkg-deb gcc make readelf tar xz gzip; do
  command -v "$c" >/dev/null 2>&1 || die "'$c' is missing (Debian: apt-get install -y apt dpkg gcc make binutils tar xz-utils gzip)"
done

# The artifacts are self-contained: they stay valid until this script or init changes (the Debian versions they
# came from are in OUT/versions.txt). This check needs no apt call, so a cached VM starts at once.
WANT="$(sha256sum "$HERE/build-vm.sh" "$HERE/init" | cut -c1-64)"
if [ -s "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$WANT" ] && [ -s "$OUT/vmlinux" ] && [ -s "$OUT/initrd.cpio.gz" ] \
   && [ -x "$OUT/busybox" ] && command -v qemu-system-x86_64 >/dev/null 2>&1; then
  say "up to date ($(sed -n 's/^linux-image-\(.*\)=.*/\1/p' "$OUT/versions.txt" 2>/dev/null | head -n1))"; exit 0
fi
rm -f "$OUT/stamp"

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "qemu-system-x86_64 is missing: sudo apt-get install -y qemu-system-x86"
  say "installing qemu-system-x86 (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >&2 \
    || die "apt-get install qemu-system-x86 failed"
fi

# The kernel ABI: whatever linux-image-amd64 points at in the registry today, pinned per build by the stamp.
abi() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1; }
ABI_PKG="$(abi)"
if [ -z "$ABI_PKG" ] && [ "$(id -u)" = 0 ]; then   # a fresh CI image often has no package lists yet
  say "apt-get update (no package lists)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >>"$LOG" 2>&1 || true
  ABI_PKG="$(abi)"
fi
[ -n "$ABI_PKG" ] || die "apt-cache knows no linux-image-amd64 (run apt-get update; this needs Debian 12 package lists)"
KVER="${ABI_PKG#linux-image-}"                       # e.g. 6.1.0-56-amd64
KCOMMON="linux-headers-${KVER%-amd64}-common"        # e.g. linux-headers-6.1.0-56-common
USER_PKGS=(busybox-static libc6 libgcc-s1 librdmacm1 libibverbs1 ibverbs-providers rdmacm-utils libnl-3-200
  libnl-route-3-200 iproute2 libmnl0 libbsd0 libmd0 libcap2)
KERNEL_PKGS=("$ABI_PKG" "linux-headers-$KVER" "$KCOMMON" linux-kbuild-6.1 linux-source-6.1)

say "building the siw VM for kernel $KVER (log: $LOG)"
: >"$LOG"

DEBS="$OUT/debs"; mkdir -p "$DEBS"
say "downloading ${#KERNEL_PKGS[@]} kernel and ${#USER_PKGS[@]} user-space packages (apt-get download)"
( cd "$DEBS" && rm -f ./*.deb && apt-get download "${KERNEL_PKGS[@]}" "${USER_PKGS[@]}" ) >>"$LOG" 2>&1 \
  || die "apt-get download failed (see $LOG; run apt-get update first?)"
deb() { ls "$DEBS"/"$1"_*.deb 2>/dev/null | head -n1; }

# ---------------------------------------------------------------------------------------------- kernel side
K="$OUT/kroot"; rm -rf "$K"; mkdir -p "$K"
for p in "$ABI_PKG" "linux-headers-$KVER" "$KCOMMON" linux-kbuild-6.1; do
  [ -n "$(deb "$p")" ] || die "no .deb for $p"; dpkg-deb -x "$(deb "$p")" "$K"
done
HDR="$K/usr/src/linux-headers-$KVER"
# Debian's arch header Makefile includes the common one by absolute path; point it into this tree.
sed -i "s#^include /usr/src/#include $K/usr/src/#" "$HDR/Makefile"

SRC="$OUT/src"; rm -rf "$SRC"; mkdir -p "$SRC"
say "extracting drivers/infiniband/sw/siw and scripts/extract-vmlinux from linux-source-6.1"
dpkg-deb --fsys-tarfile "$(deb linux-source-6.1)" | tar -xO ./usr/src/linux-source-6.1.tar.xz \
  | tar -xJ -C "$SRC" linux-source-6.1/drivers/infiniband/sw/siw linux-source-6.1/scripts/extract-vmlinux >>"$LOG" 2>&1 \
  || die "cannot extract the siw sources from linux-source-6.1"
SIW="$SRC/linux-source-6.1/drivers/infiniband/sw/siw"

build_siw() {  # build_siw NAME SED_EXPR -> $OUT/NAME.ko
  local name="$1" expr="$2" dir="$OUT/$1"
  rm -rf "$dir"; cp -r "$SIW" "$dir"
  if [ -n "$expr" ]; then
    sed -i "$expr" "$dir/siw_main.c"
    grep -q 'const bool mpa_crc_required = true;' "$dir/siw_main.c" || die "siw_main.c changed: cannot set mpa_crc_required"
  fi
  make -C "$HDR" M="$dir" CONFIG_RDMA_SIW=m modules >>"$LOG" 2>&1 || die "building $name.ko failed (see $LOG)"
  cp "$dir/siw.ko" "$OUT/$name.ko"
}
say "building siw.ko (siw's defaults) and siw-crc.ko (mpa_crc_required = true) out of tree"
build_siw siw ""
build_siw siw-crc 's/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/'

say "extracting the uncompressed vmlinux"
sh "$SRC/linux-source-6.1/scripts/extract-vmlinux" "$K/boot/vmlinuz-$KVER" >"$OUT/vmlinux.tmp" 2>>"$LOG" \
  || die "extract-vmlinux failed"
mv "$OUT/vmlinux.tmp" "$OUT/vmlinux"

# ---------------------------------------------------------------------------------------------- initramfs
U="$OUT/uroot"; rm -rf "$U"; mkdir -p "$U"
for p in "${USER_PKGS[@]}"; do [ -n "$(deb "$p")" ] || die "no .deb for $p"; dpkg-deb -x "$(deb "$p")" "$U"; done
cp "$U/bin/busybox" "$OUT/busybox"

R="$OUT/initrd"; rm -rf "$R"; mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,lib64,modules,usr/lib/x86_64-linux-gnu/libibverbs,etc/libibverbs.d}
cp "$U/bin/busybox" "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
ln -s ../bin/busybox "$R/sbin/modprobe"   # the crypto API asks /sbin/modprobe for crc32c
cp "$HERE/init" "$R/init"; chmod 755 "$R/init"
cp "$U/usr/bin/rping" "$U/usr/bin/rdma" "$R/bin/"
cp "$U/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so" "$R/usr/lib/x86_64-linux-gnu/libibverbs/"
cp "$U/etc/libibverbs.d/siw.driver" "$R/etc/libibverbs.d/"

# Shared libraries: everything the binaries need, transitively, taken from the extracted packages (not the host).
libdirs=("$U/lib/x86_64-linux-gnu" "$U/usr/lib/x86_64-linux-gnu")
declare -A seen=()
copy_needed() {
  local f="$1" n d
  for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    [ -n "${seen[$n]:-}" ] && continue
    seen[$n]=1
    for d in "${libdirs[@]}"; do
      if [ -e "$d/$n" ]; then cp -L "$d/$n" "$R/usr/lib/x86_64-linux-gnu/$n"; copy_needed "$d/$n"; continue 2; fi
    done
    die "$(basename "$f") needs $n, which none of the downloaded packages provides"
  done
}
for f in "$R/bin/rping" "$R/bin/rdma" "$R/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so"; do copy_needed "$f"; done
# rping cancels its threads: glibc dlopens libgcc_s for the unwinder.
cp -L "$U/lib/x86_64-linux-gnu/libgcc_s.so.1" "$R/usr/lib/x86_64-linux-gnu/"
cp -L "$U/lib64/ld-linux-x86-64.so.2" "$R/lib64/"
ln -s usr/lib "$R/lib"

# Kernel modules: the wanted ones and their dependencies (the "depends=" of each module's .modinfo; the package
# has no modules.dep, depmod makes it at install time), written in load order.
MODS="$K/lib/modules/$KVER"
want=(crc32c_generic e1000 ib_core ib_uverbs iw_cm rdma_cm rdma_ucm)
: >"$R/modules.order"
declare -A loaded=()
add_module() {  # add_module NAME
  local name="$1" file dep
  [ -n "${loaded[$name]:-}" ] && return 0
  file="$(find "$MODS/kernel" \( -name "$name.ko" -o -name "${name//_/-}.ko" \) | head -n1)"
  [ -n "$file" ] || die "module $name is not in $ABI_PKG"
  for dep in $(tr '\0' '\n' <"$file" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$dep"; done
  loaded[$name]=1
  cp "$file" "$R/modules/"
  basename "$file" >>"$R/modules.order"
}
for m in "${want[@]}"; do add_module "$m"; done
for m in $(tr '\0' '\n' <"$OUT/siw.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do add_module "$m"; done   # libcrc32c
cp "$OUT/siw.ko" "$OUT/siw-crc.ko" "$R/modules/"

say "packing the initramfs"
( cd "$R" && find . | sort | "$OUT/busybox" cpio -o -H newc ) | gzip -1 >"$OUT/initrd.cpio.gz.tmp" 2>>"$LOG" \
  || die "packing the initramfs failed (see $LOG)"
mv "$OUT/initrd.cpio.gz.tmp" "$OUT/initrd.cpio.gz"
[ -n "${SIW_VM_KEEP:-}" ] || rm -rf "$K" "$SRC" "$U" "$OUT/siw" "$OUT/siw-crc"   # keep the artifacts, not the trees (~700 MB)
apt-cache policy "${KERNEL_PKGS[@]}" "${USER_PKGS[@]}" 2>/dev/null \
  | awk '/^[^ ].*:$/ {p = substr($0, 1, length($0) - 1)} /^ *Candidate:/ {print p "=" $2}' >"$OUT/versions.txt"
printf '%s\n' "$WANT" >"$OUT/stamp"
say "done: $OUT/vmlinux, $OUT/initrd.cpio.gz ($(du -h "$OUT/initrd.cpio.gz" | cut -f1))"
