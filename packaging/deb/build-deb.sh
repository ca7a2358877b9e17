#!/usr/bin/env bash
# Builds the Debian package: release builds of the two products with the Swift runtime linked in
# (-static-stdlib), so the package runs where no Swift toolchain is installed: the lean front
# /usr/bin/wcs-agent (client verbs over the control socket) and the full binary
# /usr/lib/wcs-agent/wcs-agentd (daemon and everything else), which the front execs.
#
#   packaging/deb/build-deb.sh [OUTPUT_DIR]      (default: .build-deb; `make deb` runs this)
#
# The release build uses its own scratch path (.build-deb) so it never invalidates the debug
# build that `swift build --build-tests` keeps in .build. Depends is computed by dpkg-shlibdeps.
# Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-$root/.build-deb}
scratch=$root/.build-deb
export PATH="/opt/swift/usr/bin:$PATH"

version=$(sed -n 's/.*static let version = "\([^"]*\)".*/\1/p' Sources/AgentControl/AgentVersion.swift)
[ -n "$version" ] || { echo "build-deb: no version in Sources/AgentControl/AgentVersion.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)

start=$(date +%s)
# The release builds of the two products alone (the tests and other executables are not built).
for product in wcs-agentd wcs-agent; do
    swift build -c release --product "$product" --static-swift-stdlib --scratch-path "$scratch"
done
built=$(date +%s)
bin=$(swift build -c release --product wcs-agent --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)

stage=$scratch/stage
pkg=$stage/wcs-agent
rm -rf "$stage"
mkdir -p "$pkg/DEBIAN"

# Files, with the modes the package installs them with (dpkg-deb --root-owner-group: root:root).
install -D -m 0755 "$bin/wcs-agent" "$pkg/usr/bin/wcs-agent"
install -D -m 0755 "$bin/wcs-agentd" "$pkg/usr/lib/wcs-agent/wcs-agentd"
for binary in "$pkg/usr/bin/wcs-agent" "$pkg/usr/lib/wcs-agent/wcs-agentd"; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$binary"
done
# The units: the shipped examples with the binary and docs where the package puts them.
for unit in wcs-agent.service wcs-agent@.service; do
    sed -e 's|/usr/local/bin/wcs-agent|/usr/bin/wcs-agent|g' \
        -e 's|file:///usr/local/share/doc/wcs-agent/README.md|man:wcs-agent(8) file:///usr/share/doc/wcs-agent/README.md|' \
        "examples/systemd/$unit" > "$stage/$unit"
    install -D -m 0644 "$stage/$unit" "$pkg/usr/lib/systemd/system/$unit"
done
install -D -m 0644 examples/wcs-agent.conf "$pkg/etc/wcs-agent/wcs-agent.conf"
install -D -m 0644 packaging/bash-completion/wcs-agent "$pkg/usr/share/bash-completion/completions/wcs-agent"
# wcs-agent(8) is written as roff; wcs-agent.conf(5) is rendered from docs/config.md.
/usr/bin/python3 packaging/man/config-md-to-man.py docs/config.md "$version" > "$stage/wcs-agent.conf.5"
install -D -m 0644 packaging/man/wcs-agent.8 "$pkg/usr/share/man/man8/wcs-agent.8"
install -D -m 0644 "$stage/wcs-agent.conf.5" "$pkg/usr/share/man/man5/wcs-agent.conf.5"
gzip -9n "$pkg/usr/share/man/man8/wcs-agent.8" "$pkg/usr/share/man/man5/wcs-agent.conf.5"
doc=$pkg/usr/share/doc/wcs-agent
install -D -m 0644 packaging/deb/copyright "$doc/copyright"
install -m 0644 README.md "$doc/README.md"
install -m 0644 examples/systemd/README.md "$doc/systemd.md"
install -m 0644 docs/config.md "$doc/config.md"
gzip -9nc packaging/deb/changelog > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# Maintainer scripts and the conffile list.
for script in postinst prerm postrm; do install -m 0755 "packaging/deb/$script" "$pkg/DEBIAN/$script"; done
install -m 0644 packaging/deb/conffiles "$pkg/DEBIAN/conffiles"

# Depends: from both ELFs' DT_NEEDED libraries and Debian's shlibs/symbols files.
mkdir -p "$stage/shlibdeps/debian"
printf 'Source: wcs-agent\n\nPackage: wcs-agent\nArchitecture: any\n' > "$stage/shlibdeps/debian/control"
depends=$(cd "$stage/shlibdeps" && dpkg-shlibdeps -O "$pkg/usr/bin/wcs-agent" "$pkg/usr/lib/wcs-agent/wcs-agentd" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Packed relative relocations (DT_RELR, see Package.swift) need the loader of glibc 2.36: the binaries
# require the version GLIBC_ABI_DT_RELR, which dpkg-shlibdeps does not map to a libc6 version.
if [[ $(readelf -d "$pkg/usr/bin/wcs-agent" "$pkg/usr/lib/wcs-agent/wcs-agentd") == *"(RELR)"* ]]; then
    libc=$(printf '%s\n' "$depends" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
    [ -n "$libc" ] || { echo "build-deb: no libc6 in Depends: $depends" >&2; exit 1; }
    if dpkg --compare-versions "$libc" lt 2.36; then depends=$(printf '%s\n' "$depends" | sed 's/libc6 (>= [^)]*)/libc6 (>= 2.36)/'); fi
fi
# Libraries opened with dlopen on first use instead of linked (dpkg-shlibdeps cannot see them):
# each at the newest version its Debian symbols file gives any function the loader resolves (the
# names listed in the loader's function table), and at least MINIMUM.
#   dlopened PACKAGE MINIMUM PREFIX TABLE_HEADER
dlopened() {
    local package=$1 minimum=$2 prefix=$3 table=$4 symbols_file symbol since
    symbols_file=$(dpkg-query --control-path "$package" symbols 2>/dev/null | head -n 1)
    [ -r "$symbols_file" ] || { echo "build-deb: no symbols file of $package (install its -dev package)" >&2; exit 1; }
    for symbol in $(grep -o "\\b${prefix}[a-z0-9_]*" "$table" | grep -v '_t$' | sort -u); do
        since=$(sed -n "s/^ $symbol@[^ ]* \\([^ ]*\\).*/\\1/p" "$symbols_file" | head -n 1)
        [ -n "$since" ] || { echo "build-deb: $package has no $symbol" >&2; exit 1; }
        if dpkg --compare-versions "$since" gt "$minimum"; then minimum=$since; fi
    done
    depends="$depends, $package (>= $minimum)"
}
# libnice at the first call (Sources/CNice), at least 0.1.19 (NICE_AGENT_OPTION_CONSENT_FRESHNESS,
# which the agent asks for); alsa-lib at the first `alsa:` device (Sources/CALSA); libsoxr at the
# first resampler that changes the rate (Sources/CSoxr): G.711 calls, WAV files not at 48 kHz.
dlopened libnice10 0.1.19 nice_ Sources/CNice/NiceFunctionTable.h
dlopened libasound2 1.0.16 snd_ Sources/CALSA/ALSAFunctions.h
dlopened libsoxr0 0.1.0 soxr_ Sources/CSoxr/SoxrFunctions.h
size=$(du -k -s --exclude=DEBIAN "$pkg" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" -e "s|@SIZE@|$size|" \
    packaging/deb/control.in > "$pkg/DEBIAN/control"

mkdir -p "$out"
deb=$out/wcs-agent_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$deb" >/dev/null
echo "build-deb: release build $((built - start)) s, package $((($(date +%s) - built))) s; Depends: $depends" >&2
echo "$deb"
