#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gen-man9.sh [--strict] [--interface] OUTDIR - generate the section 9
# manual pages of the driver's functions (srpt_lookup_port(9),
# srpt_port_put_ref(9), ...) from the kernel-doc comments in src/*.c, with
# the kernel's own scripts/kernel-doc, one page per function:
# OUTDIR/<function>.9. A developer tool (make man9, make man9-interface):
# the packages do not run it.
#
# Without --interface OUTDIR is emptied and gets a page for every function
# with a kernel-doc comment (make man9: build/man9/). With --interface only
# the pages of the driver's documented interface, the port table API
# ($interface below), are written into OUTDIR, replacing those pages and
# nothing else: make man9-interface refreshes man/ with them, the copies
# that the .deb and the RPM install as they are (so that building the
# packages needs no kernel's kernel-doc). tests/pkg/run.sh fails when the
# copies in man/ differ from what this script generates.
#
# kernel-doc is taken from $KERNEL_DOC, else from Debian's linux-kbuild-*
# packages (/usr/lib/linux-kbuild-*), else from any kernel headers tree
# (/usr/src/linux-headers-*, /usr/src/kernels/* on Fedora/RHEL,
# /lib/modules/*/build). kernel-doc warnings are printed; with --strict
# they make the script fail. The page date comes from SOURCE_DATE_EPOCH
# (set by dpkg-buildpackage and rpmbuild) for reproducible output.
set -eu

# the documented interface: the port table API
interface="srpt_lookup_port srpt_port_get_ref srpt_port_put_ref"

strict=0 only=0
while [ $# -gt 1 ]; do
	case $1 in
	--strict) strict=1 ;;
	--interface) only=1 ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--strict] [--interface] OUTDIR" >&2; exit 2; }
out=$1
top=$(cd "$(dirname "$0")/.." && pwd)

find_kernel_doc() {
	if [ -n "${KERNEL_DOC:-}" ]; then
		echo "$KERNEL_DOC"
		return 0
	fi
	for k in $(ls -d /usr/lib/linux-kbuild-*/scripts/kernel-doc \
			/usr/src/linux-kbuild-*/scripts/kernel-doc \
			/usr/src/linux-headers-*/scripts/kernel-doc \
			/usr/src/kernels/*/scripts/kernel-doc \
			/lib/modules/*/build/scripts/kernel-doc 2>/dev/null |
			sort -V -r); do
		# the perl kernel-doc (up to 6.x); its -man output is used below
		if [ -f "$k" ] && head -n 1 "$k" | grep -q perl; then
			echo "$k"
			return 0
		fi
	done
	return 1
}

kdoc=$(find_kernel_doc) || {
	echo "gen-man9: the kernel's scripts/kernel-doc was not found;" \
	     "install linux-kbuild-<ver> (Debian) or kernel-devel (RPM)," \
	     "or set KERNEL_DOC" >&2
	exit 1
}
version=$("$top/scripts/version.sh")

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null ||
			    stat -c %Y "$top/dkms.conf")
fi
KBUILD_BUILD_TIMESTAMP=$(date -u -d "@$SOURCE_DATE_EPOCH" '+%Y-%m-%d %H:%M:%S UTC')
export KBUILD_BUILD_TIMESTAMP
unset KCFLAGS KDOC_WERROR

# SEE ALSO of the interface pages names the other interface pages
final=$out tmpdir='' see=''
if [ "$only" = 1 ]; then
	see=$interface
	tmpdir=$(mktemp -d)
	out=$tmpdir
else
	rm -rf "$out"
	mkdir -p "$out"
fi
warnings=$(mktemp)
trap 'rm -f "$warnings"; [ -z "$tmpdir" ] || rm -rf "$tmpdir"' EXIT

# One kernel-doc run per source file, so that each page can name its file.
# Pages are split at .TH lines; only function pages (whose .TH title and
# name agree) are kept: struct pages all carry the same title.
for f in "$top"/src/*.c; do
	rel=${f#"$top"/}
	(cd "$top" && perl "$kdoc" -man "$rel") 2>>"$warnings" |
	awk -v out="$out" -v rel="$rel" -v version="$version" -v see="$see" '
	function finish() {
		if (file != "") {
			print ".SH \"FILE\"" > file
			print rel " in srpt-dkms " version "." > file
			print ".SH \"SEE ALSO\"" > file
			# ib_srpt(4), then the other interface pages
			line = ".BR ib_srpt (4)"
			n = split(see, s, " ")
			for (i = 1; i <= n; i++) {
				if (s[i] == name)
					continue
				print line "," > file
				line = ".BR " s[i] " (9)"
			}
			print line > file
			close(file)
		}
		file = ""
	}
	/^\.TH / {
		finish()
		n = split($0, q, "\"")
		# q[2] = title, q[4] = name (function) or "struct x", q[6] = date
		if (q[2] == q[4] && q[2] ~ /^[A-Za-z_][A-Za-z0-9_]*$/) {
			file = out "/" q[2] ".9"
			name = q[2]
			if (seen[file]++)
				file = ""
			else
				printf(".TH \"%s\" 9 \"%s\" \"srpt-dkms %s\" \"srpt-dkms Kernel API\"\n",
				       q[2], q[6], version) > file
		}
		next
	}
	{ if (file != "") print > file }
	END { finish() }'
done

if [ "$only" = 1 ]; then
	mkdir -p "$final"
	for f in $interface; do
		[ -s "$out/$f.9" ] || {
			echo "gen-man9: no kernel-doc comment for $f() in src/" >&2
			exit 1
		}
		cp "$out/$f.9" "$final/$f.9"
	done
	out=$final
	n=$(echo $interface | wc -w)
else
	n=$(find "$out" -name '*.9' | wc -l)
fi
# a file without any kernel-doc comment is not a problem
sed -i '/no structured comments found/d' "$warnings"
if [ -s "$warnings" ]; then
	echo "gen-man9: kernel-doc warnings:" >&2
	sed 's/^/  /' "$warnings" >&2
	if [ "$strict" = 1 ]; then
		echo "gen-man9: FAILED (--strict and kernel-doc warnings)" >&2
		exit 1
	fi
fi
echo "gen-man9: $n pages in $out (kernel-doc: $kdoc)"
