#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/pkg/run.sh - packaging and documentation tests of srpt-dkms (run by
# "make check"). Prints PASS/FAIL/SKIP per check and a closing line
# "pkg: N passed, N failed, N skipped"; exits 1 if any check failed.
#
#   version        dkms.conf, MODULE_VERSION, debian/changelog, RPM spec agree
#   dkms.conf      directives, and which kernels BUILD_EXCLUSIVE_* accepts
#   man4           ib_srpt(4) renders without warnings, documents every module
#                  parameter and configfs attribute found in src/
#   man9           section 9 pages from kernel-doc (srpt_lookup_port(9) ...)
#                  render without warnings; no kernel-doc warnings; the
#                  shipped pages in man/ are what make man9-interface makes
#   builddeps      no Build-Depends or BuildRequires names a kernel package
#   deb            dpkg-buildpackage -us -uc -b, contents, lintian clean
#   rpm            rpmbuild -bb (build dependencies checked): noarch, file
#                  list, Requires; the scriptlets run against a stub dkms
#                  on install, upgrade and erase (rpm-scriptlets.sh)
#   depmod order   depmod prefers the directory dkms installs into on
#                  Fedora/RHEL (extra/), SUSE and Debian to the kernel's
#                  own ib_srpt (depmod-order.sh, fake module tree)
#   install hygiene  make install-dkms and make uninstall refuse when a .deb
#                  or .rpm owns the sources; uninstall undoes install-dkms
#                  and install-kbuild (install-hygiene.sh; private mount
#                  namespace and package databases, stub dkms)
#   srcbuild       the source package builds on Debian 11, 12 and 13, in
#                  throw-away chroots without kernel headers (srcbuild.sh)
#   dkms           DKMS lifecycle of the one .deb built here in throw-away
#                  chroots of Debian 11, 12 and 13, each with its own dkms
#                  and kernel headers (dkms-lifecycle.sh --release R):
#                  install, build for the release's kernel, kernel hook,
#                  skipped kernels (message, opt-in), purge; on Debian 12
#                  also autopkgtest, 6.1 + 6.12, upgrade, headers hook.
#                  A "note: dkms: R:" line per release: dkms version,
#                  kernels, result. Needs root; slow the first time
#                  (chroots).
#
# Environment: SRPT_PKG_SKIP_DKMS=1 skips the chroot parts (srcbuild, dkms);
# SRPT_PKG_RELEASES="bullseye bookworm trixie" (default) chooses the
# releases of the DKMS lifecycle;
# SRPT_PKG_OUT=<dir> keeps the built packages there (default: temporary).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
# shellcheck source=scripts/kernels.conf
. scripts/kernels.conf

npass=0 nfail=0 nskip=0
pass() { echo "PASS: $1"; npass=$((npass + 1)); }
fail() { echo "FAIL: $1${2:+ - $2}"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: $1${2:+ - $2}"; nskip=$((nskip + 1)); }
# count the PASS/FAIL/SKIP lines of a sub-test's output (and show them)
tally() {
	local line
	while IFS= read -r line; do
		echo "$line"
		case $line in
		PASS:*) npass=$((npass + 1)) ;;
		FAIL:*) nfail=$((nfail + 1)) ;;
		SKIP:*) nskip=$((nskip + 1)) ;;
		esac
	done
}

out=${SRPT_PKG_OUT:-}
tmp=$(mktemp -d /tmp/srpt-pkg-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] || out=$tmp/out
mkdir -p "$out"

# Tools: installed on demand when we are root (Debian package names).
need() { # need CMD PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || return 1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$2" >"$tmp/apt.log" 2>&1 ||
	{ apt-get update -q >/dev/null 2>&1 &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$2" >"$tmp/apt.log" 2>&1; }
	command -v "$1" >/dev/null 2>&1
}
have_dh_dkms() {
	[ -e /usr/share/perl5/Debian/Debhelper/Sequence/dkms.pm ] && return 0
	need dh_dkms dh-dkms
}

version=$(scripts/version.sh) || exit 2

# ---- version -------------------------------------------------------------
scripts/check-version.sh >"$tmp/version.log" 2>&1
rc=$?
tally <"$tmp/version.log"
[ $rc = 0 ] || [ "$nfail" != 0 ] || fail "version" "check-version.sh exit $rc"

# ---- dkms.conf -------------------------------------------------------------
# the opt-in line that dkms.conf's comment gives for /etc/dkms/srpt-dkms.conf
optin=$(sed -n 's/^#[[:space:]]*\(BUILD_EXCLUSIVE_KERNEL=.*\)$/\1/p' dkms.conf | head -n 1)
mkdir -p "$tmp/etc-dkms"
printf '%s\n' "$optin" >"$tmp/etc-dkms/srpt-dkms.conf"
conf_src() { # conf_src [allow]: dkms.conf reading its overrides from the
	# test copy (allow) or from nowhere
	local d=$tmp/none/
	[ -z "${1:-}" ] || d=$tmp/etc-dkms/
	sed "/^for srpt_f in/,/; do\$/s,/etc/dkms/,$d,g" dkms.conf
}
conf_get() { # conf_get KVER VAR [allow] : value after sourcing, as dkms
	# does: dkms.conf, then the override file (here: a test copy)
	bash -c 'kernelver=$1 kernel_source_dir=/lib/modules/$1/build arch=x86_64
		 eval "$4"
		 [ -z "$3" ] || . "$3"
		 eval "echo \"\${$2}\""' _ "$1" "$2" \
		"${3:+$tmp/etc-dkms/srpt-dkms.conf}" "$(conf_src "${3:-}")" 2>/dev/null
}
c() { conf_get "$SRPT_K61" "$1"; }
[ "$(c PACKAGE_NAME)" = srpt-dkms ] && [ "$(c 'BUILT_MODULE_NAME[0]')" = ib_srpt ] &&
[ "$(c 'DEST_MODULE_LOCATION[0]')" = /updates/dkms ] &&
[ "$(c AUTOINSTALL)" = yes ] && [ "$(c NO_WEAK_MODULES)" = yes ] &&
	pass "dkms.conf: name, module, updates/dkms, AUTOINSTALL, NO_WEAK_MODULES" ||
	fail "dkms.conf: name, module, updates/dkms, AUTOINSTALL, NO_WEAK_MODULES"
bec=$(c BUILD_EXCLUSIVE_CONFIG)
ok=1
for o in CONFIG_INFINIBAND CONFIG_INFINIBAND_ADDR_TRANS CONFIG_TARGET_CORE; do
	case " $bec " in *" $o "*) ;; *) ok=0 ;; esac
done
[ $ok = 1 ] && pass "dkms.conf: BUILD_EXCLUSIVE_CONFIG needs RDMA and LIO" ||
	fail "dkms.conf: BUILD_EXCLUSIVE_CONFIG needs RDMA and LIO" "'$bec'"
case $(c 'MAKE[0]') in
*"KVER=$SRPT_K61 "*"KDIR=/lib/modules/$SRPT_K61/build "*)
	pass "dkms.conf: MAKE passes the target kernel" ;;
*)	fail "dkms.conf: MAKE passes the target kernel" "$(c 'MAKE[0]')" ;;
esac
if grep -Eq '^[[:space:]]*(CLEAN|BUILD_DEPENDS|REMAKE_INITRD)=' dkms.conf; then
	fail "dkms.conf: no CLEAN, BUILD_DEPENDS or REMAKE_INITRD"
else
	pass "dkms.conf: no CLEAN, BUILD_DEPENDS or REMAKE_INITRD"
fi
# Excluded kernels are not autoinstalled where dkms's autoinstall counts a
# skip as a failure (dkms 3.0: a failed-module list, no exit-77 case);
# kept where it does not (dkms 3.2: "== 77"; dkms 2.8: no list). As read
# by "dkms autoinstall --kernelver K", without $kernelver.
ai() { # ai AUTOINSTALL-FUNCTION-BODY KVER|-a ARGS... : AUTOINSTALL
	local body=$1 k=$2
	shift 2
	bash -c 'eval "autoinstall() { $1; }"; k=$2; c=$3; shift 3
		 [ "$k" = -a ] || { kernelver=$k; kernel_source_dir=/lib/modules/$k/build; }
		 eval "$c"
		 echo "$AUTOINSTALL"' _ "$body" "$k" "$(conf_src)" "$@" 2>/dev/null
}
a30='failed_modules=(); die 11' a32='failed_modules=(); (( status == 77 ))' a28='install_module'
if [ "$(ai "$a30" 7.4.0-1-amd64)" = "" ] && [ "$(ai "$a30" 5.4.0-1-generic)" = "" ] &&
   [ "$(ai "$a30" 7.3.4+deb13-amd64)" = yes ] &&
   [ "$(ai "$a30" -a autoinstall --kernelver 7.4.0-1-amd64)" = "" ] &&
   [ "$(ai "$a30" -a autoinstall -k 6.12.117+deb12-amd64/x86_64)" = yes ] &&
   [ "$(ai "$a32" 7.4.0-1-amd64)" = yes ] && [ "$(ai "$a28" 7.4.0-1-amd64)" = yes ] &&
   [ "$(ai "$a32" -a autoinstall --kernelver 7.4.0-1-amd64)" = yes ]; then
	pass "dkms.conf: AUTOINSTALL off for excluded kernels only where dkms 3.0 would fail the hook"
else
	fail "dkms.conf: AUTOINSTALL off for excluded kernels only where dkms 3.0 would fail the hook"
fi
# never silent: an excluded kernel is named on stderr, with the reason and
# (newer kernels) the opt-in; nothing for a kernel that is built; nothing
# on stdout (dkms discards it)
msg() { # msg KVER [allow] : stdout and stderr of sourcing dkms.conf
	bash -c 'kernelver=$1 kernel_source_dir=/nonexistent; eval "$2"' _ "$1" "$(conf_src "${2:-}")" 2>&1
}
m8=$(msg 8.0.0-1-amd64) m4=$(msg 4.19.0-27-amd64)
if printf '%s\n' "$m8" | grep -q '^srpt-dkms: ib_srpt is not built for kernel 8\.0\.0-1-amd64 .*newer than 7\.3' &&
   printf '%s\n' "$m8" | grep -qF "/etc/dkms/srpt-dkms.conf" &&
   printf '%s\n' "$m8" | grep -qF "$optin" &&
   printf '%s\n' "$m8" | grep -q 'dkms autoinstall -k 8\.0\.0-1-amd64' &&
   printf '%s\n' "$m4" | grep -q '^srpt-dkms: ib_srpt is not built for kernel 4\.19\.0-27-amd64 .*5\.10 to 7\.3' &&
   [ -z "$(msg 6.1.0-57-amd64)" ] && [ -z "$(msg 8.0.0-1-amd64 allow)" ] &&
   [ -z "$(bash -c 'kernelver=8.0.0-1-amd64; eval "$1"' _ "$(conf_src)" 2>/dev/null)" ]; then
	pass "dkms.conf: a skipped kernel is named, with why and how to opt in (stderr)"
else
	fail "dkms.conf: a skipped kernel is named, with why and how to opt in (stderr)" "$(echo "$m8" | head -n 2 | tr '\n' ' ')"
fi
# dkms 2.8 (no BUILD_EXCLUSIVE_CONFIG in its $dkms_conf_variables): a
# kernel without RDMA/LIO is excluded through BUILD_EXCLUSIVE_ARCH
mkdir -p "$tmp/knoib" "$tmp/kib"
printf 'CONFIG_TARGET_CORE=m\n' >"$tmp/knoib/.config"
printf 'CONFIG_INFINIBAND=m\nCONFIG_INFINIBAND_ADDR_TRANS=y\nCONFIG_TARGET_CORE=m\n' >"$tmp/kib/.config"
arch28() { # arch28 KDIR DKMS_CONF_VARIABLES : BUILD_EXCLUSIVE_ARCH
	bash -c 'kernelver=6.1.0-57-amd64 kernel_source_dir=$1 dkms_conf_variables=$2
		 eval "$3"; echo "${BUILD_EXCLUSIVE_ARCH-unset}"' _ "$1" "$2" "$(conf_src)" 2>/dev/null
}
if [ "$(arch28 "$tmp/knoib" "PACKAGE_NAME BUILD_EXCLUSIVE_KERNEL")" = '^$' ] &&
   [ "$(arch28 "$tmp/kib" "PACKAGE_NAME BUILD_EXCLUSIVE_KERNEL")" = unset ] &&
   [ "$(arch28 "$tmp/knoib" "BUILD_EXCLUSIVE_KERNEL BUILD_EXCLUSIVE_CONFIG")" = unset ]; then
	pass "dkms.conf: dkms 2.8 skips kernels without RDMA/LIO (BUILD_EXCLUSIVE_ARCH)"
else
	fail "dkms.conf: dkms 2.8 skips kernels without RDMA/LIO (BUILD_EXCLUSIVE_ARCH)"
fi
# kernel lines: expected y(es)/n(o), default and with the override file
kmatch() { # kmatch KVER [allow] -> y/n
	local re
	re=$(conf_get "$1" BUILD_EXCLUSIVE_KERNEL "${2:-}")
	bash -c '[[ $1 =~ $2 ]]' _ "$1" "$re" && echo y || echo n
}
# the newest line built by default is the newest tested one, which
# scripts/kernels.conf names (the VM tests, the matrix)
knewest=$SRPT_NEWEST_LINE.0-1-amd64
knext=${SRPT_NEWEST_LINE%%.*}.$((${SRPT_NEWEST_LINE#*.} + 1)).0-1-amd64
if [ "$(kmatch "$knewest"):$(kmatch "$knext"):$(kmatch "$knext" allow)" = y:n:y ]; then
	pass "dkms.conf: newest line built is $SRPT_NEWEST_LINE (SRPT_NEWEST_LINE of scripts/kernels.conf)"
else
	fail "dkms.conf: newest line built is $SRPT_NEWEST_LINE (SRPT_NEWEST_LINE of scripts/kernels.conf)" \
	     "$knewest=$(kmatch "$knewest") $knext=$(kmatch "$knext")"
fi
# test vectors (not pins): kernel releases of Debian, Ubuntu, RHEL shapes
ok=1 bad=
for t in 4.19.0-27-amd64:n:n 5.4.0-1-generic:n:n 5.10.0-35-amd64:y:y \
	 5.15.0-126-generic:y:y 6.1.0-57-amd64:y:y 6.1.0-57-cloud-amd64:y:y \
	 6.12.117+deb12-amd64:y:y 6.8.0-49-generic:y:y \
	 7.2.1+deb14-amd64:y:y 7.3.4+deb13-amd64:y:y 7.4.0-1-amd64:n:y \
	 8.0.0-1-amd64:n:y 10.1.0-1-amd64:n:y; do
	k=${t%%:*} r=${t#*:}
	got=$(kmatch "$k"):$(kmatch "$k" allow)
	[ "$got" = "$r" ] || { ok=0 bad="$bad $k=$got(want $r)"; }
done
[ $ok = 1 ] && pass "dkms.conf: BUILD_EXCLUSIVE_KERNEL builds 5.10..7.3 (newer only with the override)" ||
	fail "dkms.conf: BUILD_EXCLUSIVE_KERNEL builds 5.10..7.3 (newer only with the override)" "$bad"

# ---- man pages -------------------------------------------------------------
render_clean() { # render_clean FILE : no groff/man warnings
	local w
	w=$( { groff -man -ww -z "$1"; \
	       LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
		"$1" >/dev/null; } 2>&1)
	[ -z "$w" ] || { echo "$w" | head -n 5 >&2; return 1; }
}
if need groff groff-base && need man man-db; then
	render_clean man/ib_srpt.4 && pass "man4: ib_srpt.4 renders without warnings" ||
		fail "man4: ib_srpt.4 renders without warnings"
	grep -q "srpt-dkms $version" man/ib_srpt.4 &&
		pass "man4: ib_srpt.4 names version $version" ||
		fail "man4: ib_srpt.4 names version $version"
	# every module parameter and configfs attribute of the code is documented
	# (src/debug.c is compiled only into test builds, SRPT_DEBUG_HOOKS=y:
	# its parameters are not part of the interface; tests/vm/README.md
	# documents them)
	# shellcheck disable=SC2010 # src/*.c: no blanks or globs in the names
	params=$(ls src/*.c | grep -v '^src/debug\.c$' | xargs grep -ho 'module_param[a-z_]*([a-z_0-9]*' |
		sed 's/.*(//' | sort -u)
	attrs=$( { grep -ho 'CONFIGFS_ATTR[_A-Z]*([a-z_]*, *[a-z_0-9]*' src/*.c |
		   sed 's/.*, *//'; grep -ho '^SRPT_TPG_ATTRIB([a-z_0-9]*' src/*.c |
		   sed 's/.*(//'; } | sort -u)
	missing=
	for w in $params $attrs; do
		grep -q "$w" man/ib_srpt.4 || missing="$missing $w"
	done
	if [ -z "$params" ]; then
		fail "man4: documents every module parameter and attribute" "none found in src/"
	elif [ -z "$missing" ]; then
		pass "man4: documents every module parameter and attribute ($(echo $params $attrs | wc -w))"
	else
		fail "man4: documents every module parameter and attribute" "missing:$missing"
	fi

	if scripts/gen-man9.sh --strict "$tmp/man9" >"$tmp/man9.log" 2>&1; then
		pass "man9: kernel-doc generates pages without warnings ($(ls "$tmp/man9" | wc -l) pages)"
	else
		fail "man9: kernel-doc generates pages without warnings" \
		     "$(grep -v '^gen-man9' "$tmp/man9.log" | head -n 5 | tr '\n' ' ')"
	fi
	for f in srpt_lookup_port srpt_port_get_ref srpt_port_put_ref; do
		[ -s "$tmp/man9/$f.9" ] && pass "man9: $f(9) generated" ||
			fail "man9: $f(9) generated"
	done
	bad=
	for f in "$tmp"/man9/*.9 man/*.9; do
		[ -e "$f" ] || continue
		render_clean "$f" 2>/dev/null || bad="$bad $f"
	done
	[ -z "$bad" ] && pass "man9: every page renders without warnings" ||
		fail "man9: every page renders without warnings" "$bad"
	# the pages the packages ship (man/*.9, the port table API) are those
	# that make man9-interface generates now: same set, same text except
	# the month in the .TH line
	if scripts/gen-man9.sh --interface "$tmp/man9i" >"$tmp/man9i.log" 2>&1; then
		th() { sed '1s/^\(\.TH "[^"]*" 9\) "[^"]*"/\1 DATE/' "$1"; }
		stale=
		for f in "$tmp"/man9i/*.9 man/*.9; do
			b=$(basename "$f")
			[ -f "man/$b" ] && [ -f "$tmp/man9i/$b" ] &&
				[ "$(th "man/$b")" = "$(th "$tmp/man9i/$b")" ] ||
				stale="$stale $b"
		done
		[ -z "$stale" ] && pass "man9: man/*.9 are up to date ($(ls man/*.9 | wc -l) pages)" ||
			fail "man9: man/*.9 are up to date" "differ or missing:$stale (run make man9-interface)"
	else
		fail "man9: man/*.9 are up to date" "$(head -n 3 "$tmp/man9i.log" | tr '\n' ' ')"
	fi
else
	skip "man pages" "groff/man not available"
fi

# ---- build dependencies --------------------------------------------------------
# The source package must build on every release whose kernels we support
# (and the RPM on any RPM distribution): no build dependency may name a
# kernel version, kernel headers or a kernel's build tools (linux-*,
# kernel-*).
kernel_deps() { # kernel_deps: read dependency names, print the kernel ones
	tr ',|' '\n\n' | sed 's/([^)]*)//g; s/\[[^]]*\]//g; s/<[^>]*>//g' |
		awk '{ for (i = 1; i <= NF; i++) print $i }' |
		grep -E '^(linux|kernel)-' | tr '\n' ' '
}
bd=$(awk '/^[A-Za-z-]+:/ { f = ($1 ~ /^Build-(Depends|Depends-Indep|Depends-Arch):$/) }
	  f { sub(/^Build-Depends[-A-Za-z]*:/, ""); print }' debian/control | kernel_deps)
[ -z "$bd" ] && pass "deb: Build-Depends name no kernel package" ||
	fail "deb: Build-Depends name no kernel package" "$bd"
br=$(sed -n 's/^BuildRequires:[[:space:]]*//p' rpm/srpt-dkms.spec | kernel_deps)
[ -z "$br" ] && pass "rpm: BuildRequires name no kernel package" ||
	fail "rpm: BuildRequires name no kernel package" "$br"

# ---- Debian package ----------------------------------------------------------
# a copy of the tree (no git, no build products), so that nothing is built in
# the shared work tree
copy_tree() { # copy_tree DEST
	mkdir -p "$1"
	tar -C "$top" --exclude=.git --exclude=./build --exclude='*.o' \
		--exclude='*.ko' --exclude='*.ko.xz' --exclude='.*.cmd' \
		--exclude=./src/generated --exclude='./debian/srpt-dkms' \
		--exclude='./debian/.debhelper' -cf - . | tar -C "$1" -xf -
}
build_deb() { # build_deb SRCDIR LOG : .deb in SRCDIR/..
	(cd "$1" && dpkg-buildpackage -us -uc -b >"$2" 2>&1)
}
# dropins KIND FILELIST CONTENT: the package (file list FILELIST, absolute
# paths) has the systemd drop-in at
# /usr/lib/systemd/system/<unit>.d/srpt-dkms.conf for both unit names
# (Debian: rtslib-fb-targetctl.service, upstream/RHEL: target.service), no
# other file under /lib or /usr/lib/systemd, and CONTENT (one of them)
# orders after rdma-hw.target without pulling it in; if systemd-analyze is
# there, it finds no error in a unit that carries the drop-in.
dropins() {
	local k=$1 fl=$2 txt=$3 u miss="" stray name="$1: systemd drop-ins after rdma-hw.target"
	for u in rtslib-fb-targetctl.service target.service; do
		printf '%s\n' "$fl" | grep -qxF "/usr/lib/systemd/system/$u.d/srpt-dkms.conf" ||
			miss="$miss $u.d"
	done
	stray=$(printf '%s\n' "$fl" | grep -E '^/(usr/)?lib/systemd/' |
		grep -Ev '^/usr/lib/systemd/system(/(target|rtslib-fb-targetctl)\.service\.d(/srpt-dkms\.conf)?)?/?$' |
		grep -Ev '^/usr/lib/systemd/?$' | head -n 3)
	if [ -n "$miss" ] || [ -n "$stray" ]; then
		fail "$name" "missing:$miss; elsewhere: $stray"
	elif ! printf '%s\n' "$txt" | grep -qx 'After=rdma-hw.target' ||
	     printf '%s\n' "$txt" | grep -Eq '^(Wants|Requires|BindsTo)='; then
		fail "$name" "the drop-in does not say After=rdma-hw.target alone: $(printf '%s' "$txt" | grep -v '^#' | tr '\n' ' ')"
	else
		pass "$name"
	fi
	# systemd's own parser on a unit with the drop-in (no systemd needed
	# as PID 1: systemd-analyze verify reads the files only)
	command -v systemd-analyze >/dev/null 2>&1 ||
		{ skip "$k: systemd-analyze verify" "no systemd-analyze"; return 0; }
	local v=$tmp/verify-$k vo
	rm -rf "$v"
	mkdir -p "$v/srpt-test.service.d"
	printf '[Unit]\nDescription=drop-in test\n[Service]\nType=oneshot\nExecStart=/bin/true\n' \
		>"$v/srpt-test.service"
	printf '%s\n' "$txt" >"$v/srpt-test.service.d/srpt-dkms.conf"
	if vo=$(SYSTEMD_UNIT_PATH=$v: systemd-analyze verify "$v/srpt-test.service" 2>&1) &&
	   [ -z "$vo" ]; then
		pass "$k: systemd-analyze verify of a unit with the drop-in"
	else
		fail "$k: systemd-analyze verify of a unit with the drop-in" "$(echo "$vo" | head -n 3 | tr '\n' ' ')"
	fi
}
deb=$out/${PKG:-srpt-dkms}_${version}_all.deb
newver=$version.1
newdeb=$out/srpt-dkms_${newver}_all.deb
if need dpkg-buildpackage dpkg-dev && need dh debhelper && have_dh_dkms &&
   need fakeroot fakeroot; then
	copy_tree "$tmp/deb/srpt-dkms"
	if build_deb "$tmp/deb/srpt-dkms" "$tmp/deb.log"; then
		cp "$tmp"/deb/*.deb "$out/"
		pass "deb: dpkg-buildpackage -us -uc -b"
	else
		fail "deb: dpkg-buildpackage -us -uc -b" "$(tail -n 5 "$tmp/deb.log" | tr '\n' ' ')"
	fi
else
	skip "deb" "debhelper, dh-dkms or dpkg-dev not available"
fi
if [ -f "$deb" ]; then
	c=$(dpkg-deb -c "$deb" | awk '{print $6}')
	missing=
	for f in ./usr/src/srpt-dkms-$version/dkms.conf \
		 ./usr/src/srpt-dkms-$version/Makefile \
		 ./usr/src/srpt-dkms-$version/src/Kbuild \
		 ./usr/src/srpt-dkms-$version/src/main.c \
		 ./usr/src/srpt-dkms-$version/include/srpt.h \
		 ./usr/src/srpt-dkms-$version/docs/design.md \
		 ./usr/src/srpt-dkms-$version/scripts/compat-probes.sh \
		 ./usr/share/man/man4/ib_srpt.4.gz \
		 ./usr/share/man/man9/srpt_lookup_port.9.gz \
		 ./usr/share/man/man9/srpt_port_get_ref.9.gz \
		 ./usr/share/man/man9/srpt_port_put_ref.9.gz \
		 ./usr/share/doc/srpt-dkms/README.md; do
		printf '%s\n' "$c" | grep -qxF -e "$f" -e "$f.gz" ||
			missing="$missing $f"
	done
	[ -z "$missing" ] && pass "deb: contents (sources, man4, man9, README)" ||
		fail "deb: contents (sources, man4, man9, README)" "missing:$missing"
	m9=$(printf '%s\n' "$c" | sed -n 's,^\./usr/share/man/man9/\(.*\)\.9\.gz$,\1,p' | sort | tr '\n' ' ')
	[ "$m9" = "srpt_lookup_port srpt_port_get_ref srpt_port_put_ref " ] &&
		pass "deb: section 9 pages of the port table API only" ||
		fail "deb: section 9 pages of the port table API only" "$m9"
	junk=$(printf '%s\n' "$c" | grep -E '\.(o|ko|cmd)$|/generated/|/tests/|/debian/' | head -n 3)
	[ -z "$junk" ] && pass "deb: no build products or tests in /usr/src" ||
		fail "deb: no build products or tests in /usr/src" "$junk"
	[ "$(dpkg-deb -f "$deb" Architecture)" = all ] &&
	dpkg-deb -f "$deb" Depends | grep -qF 'dkms (>= 2.8.4~)' &&
		pass "deb: Architecture all, Depends dkms (>= 2.8.4~) (Debian 11 on)" ||
		fail "deb: Architecture all, Depends dkms (>= 2.8.4~) (Debian 11 on)" \
		     "$(dpkg-deb -f "$deb" Architecture Depends | tr '\n' ' ')"
	# the systemd drop-ins (systemd/srpt-dkms.conf) for Debian's and
	# upstream's name of the unit that restores the LIO configuration
	dropins "deb" "$(printf '%s\n' "$c" | sed -n 's,^\./,/,p')" \
		"$(dpkg-deb --fsys-tarfile "$deb" |
		   tar -xOf - ./usr/lib/systemd/system/rtslib-fb-targetctl.service.d/srpt-dkms.conf 2>/dev/null)"
	if need lintian lintian; then
		chg=$(ls "$tmp"/deb/*.changes | head -n 1)
		lintian --fail-on error,warning "$chg" >"$tmp/lintian.log" 2>&1
		rc=$?
		ew=$(grep -E '^[EW]: ' "$tmp/lintian.log")
		if [ $rc = 0 ] && [ -z "$ew" ]; then
			pass "deb: lintian reports no errors or warnings"
		else
			fail "deb: lintian reports no errors or warnings" "$(echo "$ew" | head -n 5 | tr '\n' ' ')"
		fi
	else
		skip "deb: lintian" "lintian not available"
	fi
fi

# ---- RPM -------------------------------------------------------------------
rpmf=
if need rpmbuild rpm; then
	r=$tmp/rpm
	mkdir -p "$r/SOURCES"
	copy_tree "$r/src"
	tar -C "$r/src" --transform "s,^\\.,srpt-dkms-$version," \
		-czf "$r/SOURCES/srpt-dkms-$version.tar.gz" .
	# without --nodeps: rpmbuild checks the BuildRequires against the
	# (empty) RPM database of this Debian machine, so the spec must build
	# without any kernel (or other) package
	if rpmbuild -bb --define "_topdir $r" rpm/srpt-dkms.spec \
		>"$tmp/rpm.log" 2>&1; then
		pass "rpm: rpmbuild -bb"
	else
		fail "rpm: rpmbuild -bb" "$(grep -E 'error|Error' "$tmp/rpm.log" | head -n 3 | tr '\n' ' ')"
	fi
	rpmf=$(ls "$r"/RPMS/noarch/srpt-dkms-"$version"-*.noarch.rpm 2>/dev/null | head -n 1)
	if [ -n "$rpmf" ]; then
		cp "$rpmf" "$out/"
		pass "rpm: noarch package $(basename "$rpmf")"
		fl=$(rpm -qpl "$rpmf" 2>/dev/null)
		missing=
		for f in /usr/src/srpt-dkms-$version/dkms.conf \
			 /usr/src/srpt-dkms-$version/Makefile \
			 /usr/src/srpt-dkms-$version/src/Kbuild \
			 /usr/src/srpt-dkms-$version/scripts/compat-probes.sh \
			 /usr/src/srpt-dkms-$version/include/srpt.h; do
			printf '%s\n' "$fl" | grep -qxF "$f" || missing="$missing $f"
		done
		for f in /usr/share/man/man4/ib_srpt.4 /usr/share/man/man9/srpt_lookup_port.9 \
			 /usr/share/man/man9/srpt_port_put_ref.9; do
			printf '%s\n' "$fl" | grep -q "^$f" || missing="$missing $f"
		done
		[ -z "$missing" ] && pass "rpm: file list (sources, man4, man9)" ||
			fail "rpm: file list (sources, man4, man9)" "missing:$missing"
		dropins "rpm" "$fl" "$(rpm2cpio "$rpmf" 2>/dev/null |
			(cd "$tmp" && cpio -i --quiet --to-stdout \
				./usr/lib/systemd/system/target.service.d/srpt-dkms.conf) 2>/dev/null)"
		other=$(printf '%s\n' "$fl" | grep -Ev '^/usr/(src/srpt-dkms-|share/man/man[49]/|share/doc/|share/licenses/)' |
			grep -Ev '^/usr/lib/systemd/system/(target|rtslib-fb-targetctl)\.service\.d(/srpt-dkms\.conf)?$')
		[ -z "$other" ] && pass "rpm: nothing outside /usr/src, /usr/share and the drop-ins" ||
			fail "rpm: nothing outside /usr/src, /usr/share and the drop-ins" "$(echo "$other" | head -n 3)"
		# what the scriptlets call on install, upgrade and erase
		tests/pkg/rpm-scriptlets.sh "$rpmf" >"$tmp/scriptlets.log" 2>&1
		rc=$?
		nf=$nfail
		tally <"$tmp/scriptlets.log"
		[ $rc = 0 ] || [ "$nfail" != "$nf" ] ||
			fail "rpm scriptlets" "exit $rc: $(tail -n 3 "$tmp/scriptlets.log" | tr '\n' ' ')"
		# what a DKMS build needs on the target (see the spec's comments)
		req=$(rpm -qp --requires "$rpmf" 2>/dev/null)
		missing=
		for w in dkms gcc make '(kernel-devel if kernel-core)' \
			 '(kernel-default-devel if kernel-default)'; do
			printf '%s\n' "$req" | grep -qxF "$w" || missing="$missing '$w'"
		done
		[ -z "$missing" ] &&
			pass "rpm: Requires dkms, gcc, make, the installed kernel flavour's headers" ||
			fail "rpm: Requires dkms, gcc, make, the installed kernel flavour's headers" \
			     "missing:$missing"
		# noarch: no build dependency at all (so none that is arch-specific)
		brq=$(rpmspec -q --buildrequires rpm/srpt-dkms.spec 2>/dev/null ||
		      sed -n 's/^BuildRequires:[[:space:]]*//p' rpm/srpt-dkms.spec)
		[ -z "$brq" ] && pass "rpm: no BuildRequires" ||
			fail "rpm: no BuildRequires" "$(echo "$brq" | tr '\n' ' ')"
	else
		fail "rpm: noarch package"
	fi
else
	skip "rpm" "rpmbuild not available"
fi

# ---- depmod prefers the DKMS directory of each distribution --------------------
if command -v gcc >/dev/null 2>&1; then
	nf=$nfail
	tests/pkg/depmod-order.sh >"$tmp/depmod.log" 2>&1
	rc=$?
	tally <"$tmp/depmod.log"
	[ $rc = 0 ] || [ "$nfail" != "$nf" ] ||
		fail "depmod order" "exit $rc: $(tail -n 3 "$tmp/depmod.log" | tr '\n' ' ')"
else
	skip "depmod order" "gcc not available"
fi

# ---- make install-dkms / uninstall next to the packages --------------------------
# (private mount namespace and package databases; needs root)
if [ "$(id -u)" != 0 ]; then
	skip "install hygiene" "needs root (mount namespace)"
elif ! command -v gcc >/dev/null 2>&1; then
	skip "install hygiene" "gcc not available"
else
	nf=$nfail
	tests/pkg/install-hygiene.sh ${rpmf:+"$rpmf"} >"$tmp/hygiene.log" 2>&1
	rc=$?
	tally <"$tmp/hygiene.log"
	[ $rc = 0 ] || [ "$nfail" != "$nf" ] ||
		fail "install hygiene" "exit $rc: $(tail -n 3 "$tmp/hygiene.log" | tr '\n' ' ')"
fi

# chroot_step NAME: true if the chroot steps below can run; otherwise
# reports NAME as skipped (or failed: no .deb) and returns false.
chroot_step() {
	if [ -n "${SRPT_PKG_SKIP_DKMS:-}" ]; then
		skip "$1" "SRPT_PKG_SKIP_DKMS set"
	elif [ "$(id -u)" != 0 ]; then
		skip "$1" "needs root (chroot, mounts)"
	elif [ ! -f "$deb" ]; then
		fail "$1" "no .deb was built"
	elif ! need mmdebstrap mmdebstrap; then
		skip "$1" "mmdebstrap not available"
	else
		return 0
	fi
	return 1
}

# ---- the source package on Debian 11, 12 and 13 ------------------------------
if chroot_step "srcbuild"; then
	nf=$nfail
	tests/pkg/srcbuild.sh "$deb" >"$tmp/srcbuild.log" 2>&1
	rc=$?
	tally < <(grep -E '^(PASS|FAIL|SKIP|note)' "$tmp/srcbuild.log")
	[ $rc = 0 ] || [ "$nfail" != "$nf" ] ||
		fail "srcbuild" "exit $rc: $(tail -n 3 "$tmp/srcbuild.log" | tr '\n' ' ')"
fi

# ---- DKMS lifecycle in a chroot ----------------------------------------------
if chroot_step "dkms lifecycle"; then
	# the same tree as version <version>.1, to test an upgrade
	copy_tree "$tmp/deb2/srpt-dkms"
	d=$tmp/deb2/srpt-dkms
	sed -i "s/^PACKAGE_VERSION=\"$version\"/PACKAGE_VERSION=\"$newver\"/" "$d/dkms.conf"
	{ printf 'srpt-dkms (%s) unstable; urgency=medium\n\n  * Test upgrade.\n\n' "$newver"
	  printf ' -- srpt-dkms tests <srpt-dkms@example.org>  %s\n\n' "$(date -R)"
	  cat "$d/debian/changelog"; } >"$d/debian/changelog.new"
	mv "$d/debian/changelog.new" "$d/debian/changelog"
	if build_deb "$d" "$tmp/deb2.log" && cp "$tmp"/deb2/*.deb "$out/"; then
		# one after the other (2 cores): the same .deb on each release
		for rel in ${SRPT_PKG_RELEASES:-bullseye bookworm trixie}; do
			nf=$nfail
			tests/pkg/dkms-lifecycle.sh --release "$rel" "$deb" "$newdeb" \
				>"$tmp/dkms-$rel.log" 2>&1
			rc=$?
			tally < <(grep -E '^(PASS|FAIL|SKIP|note)' "$tmp/dkms-$rel.log")
			[ $rc = 0 ] || [ "$nfail" != "$nf" ] ||
				fail "dkms lifecycle $rel" "exit $rc: $(tail -n 3 "$tmp/dkms-$rel.log" | tr '\n' ' ')"
		done
	else
		fail "dkms lifecycle: build the $newver package" "$(tail -n 3 "$tmp/deb2.log")"
	fi
fi

echo "pkg: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
