#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# lint-refs.pl TOPDIR - the reference checks of `make lint` (run by
# scripts/lint.sh). Prints one line per dangling reference,
# "FILE:LINE: TYPE: message", and exits 1 if there is any, 2 if the kernel
# headers needed for REF_FUNCTION are missing, 0 otherwise.
# lint-refs.pl --self-test runs the checks on a small tree with known good
# and dangling references (built in a temporary directory) and exits 0 only
# if exactly the expected findings come out; scripts/lint.sh runs it first,
# so a checker that stops finding anything fails the lint.
#
#   REF_PATH      a repository path named in a comment of src/*.c or
#                 include/*.h, or in README.md, tests/vm/README.md or
#                 docs/design.md, does not exist. A path is a word with a
#                 '/' whose first component is a top-level directory of the
#                 repository (src, include, tests, scripts, docs, man,
#                 debian, rpm, .ci) or a directory next to the file, or a bare
#                 file name ending in .md, .c, .h or .sh (searched in the
#                 whole tree). <placeholders>, NNN and '*' match anything;
#                 build products (.ko, .o, generated/) only need their
#                 directory. Absolute paths are ignored, except *.md ones:
#                 documents must be in the repository.
#   REF_HEADING   a citation docs/design.md, "Heading" (several headings:
#                 "A", "B" and "C") names a heading that docs/design.md
#                 does not have. Checked in every file listed above and in
#                 the comments of tests/ and scripts/ (C and shell), and
#                 for the see "Heading" references inside docs/design.md.
#   REF_FUNCTION  a name() in a comment of src/*.c or include/*.h is
#                 neither a function or macro defined in the tree (src/,
#                 include/, tests/) nor a word of the headers of an
#                 installed kernel (/usr/src/linux-headers-*/include and
#                 arch/x86/include; $SRPT_LINT_KHEADERS overrides the
#                 list of directories), nor listed in
#                 scripts/lint-kernel-symbols (kernel functions outside the
#                 headers, each with its reason).
#
# Comments are found with a small C lexer (string and character literals
# are skipped) and, in shell files, as lines starting with '#'. Comment
# decoration (the leading '*' or '#') is ignored, so a citation may wrap
# across comment lines.
use strict;
use warnings;

my $top = shift or die "usage: $0 TOPDIR | --self-test\n";
exit self_test() if $top eq '--self-test';
chdir $top or die "lint-refs: cannot cd to $top: $!\n";

my @topdirs = qw(src include tests scripts docs man debian rpm .ci);
my $design = 'docs/design.md';

sub slurp {
	my ($f) = @_;
	open(my $fh, '<', $f) or die "lint-refs: $f: $!\n";
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

# C source: keep the text of comments, blank everything else (newlines are
# kept, so offsets map to the same lines).
sub mask_c {
	my ($s) = @_;
	my @c = split //, $s;
	my $out = '';
	my $st = 'code';
	for (my $i = 0; $i < @c; $i++) {
		my $ch = $c[$i];
		my $nx = $i + 1 < @c ? $c[$i + 1] : '';
		if ($st eq 'code') {
			if ($ch eq '/' && $nx eq '*') {
				$st = 'block'; $out .= '  '; $i++; next;
			}
			if ($ch eq '/' && $nx eq '/') {
				$st = 'line'; $out .= '  '; $i++; next;
			}
			$st = 'str' if $ch eq '"';
			$st = 'chr' if $ch eq "'";
			$out .= $ch eq "\n" ? "\n" : ' ';
		} elsif ($st eq 'str' || $st eq 'chr') {
			my $q = $st eq 'str' ? '"' : "'";
			if ($ch eq '\\') {
				$out .= '  '; $i++; next;
			}
			$st = 'code' if $ch eq $q;
			$out .= $ch eq "\n" ? "\n" : ' ';
		} elsif ($st eq 'block') {
			if ($ch eq '*' && $nx eq '/') {
				$st = 'code'; $out .= '  '; $i++; next;
			}
			$out .= $ch;
		} else {	# line comment
			$st = 'code' if $ch eq "\n";
			$out .= $ch;
		}
	}
	# the leading '*' of block comment lines is decoration
	$out =~ s/^([ \t]*)\*/$1 /mg;
	return $out;
}

# Shell: the text after the leading '#'s of comment lines (not "#!").
sub mask_sh {
	my ($s) = @_;
	my @out;
	for my $l (split /\n/, $s, -1) {
		if ($l =~ /^(\s*)(#+)(?!!)(.*)$/) {
			push @out, $1 . (' ' x length $2) . $3;
		} else {
			push @out, '';
		}
	}
	return join "\n", @out;
}

sub masked {
	my ($f) = @_;
	my $s = slurp($f);
	return mask_c($s) if $f =~ /\.[ch]$/;
	return mask_sh($s) if $f =~ /\.sh$/;
	return $s;
}

sub line_of {
	my ($s, $pos) = @_;
	return 1 + (substr($s, 0, $pos) =~ tr/\n//);
}

my @findings;
sub finding {
	my ($f, $s, $pos, $type, $msg) = @_;
	push @findings, sprintf("%s:%d: %s: %s", $f, line_of($s, $pos), $type,
				$msg);
}

# ---- files -----------------------------------------------------------

my @kcode = (sort(glob('src/*.c')), sort(glob('include/*.h')));
my @docs = grep { -f } ('README.md', 'tests/vm/README.md', $design);
my @tests = sort(glob('tests/*/*.[ch]'), glob('tests/*/*.sh'),
		 glob('tests/vm/cases/*.sh'), glob('tests/vm/lib.d/*.sh'),
		 glob('scripts/*.sh'));
my %all_files;
{
	my @stack = ('.');
	while (my $d = pop @stack) {
		opendir(my $dh, $d) or next;
		for my $e (readdir $dh) {
			next if $e eq '.' || $e eq '..' || $e eq '.git' ||
				$e eq 'build';
			my $p = $d eq '.' ? $e : "$d/$e";
			if (-d $p && !-l $p) {
				push @stack, $p;
			} else {
				push @{$all_files{$e}}, $p;
			}
		}
		closedir $dh;
	}
}

# ---- REF_PATH --------------------------------------------------------

sub path_exists {
	my ($p, $dir) = @_;
	my $g = $p;
	$g =~ s/<[^>]*>/*/g;
	$g =~ s/NNN[\w-]*/*/g;
	$g =~ s/#.*//;			# markdown anchor
	# build products: only their directory has to exist
	if ($g =~ m{(?:\.ko|\.o|\.a)$} || $g =~ m{(^|/)generated(/|$)}) {
		$g =~ s{/[^/]*$}{};
		$g =~ s{(^|/)generated(/.*)?$}{};
		return 1 if $g eq '';
	}
	for my $base ('.', $dir) {
		my $pat = $base eq '.' ? $g : "$base/$g";
		return 1 if $pat !~ /[*?\[]/ && -e $pat;
		return 1 if $pat =~ /[*?\[]/ && grep { -e } glob($pat);
	}
	return 0;
}

sub check_paths {
	my ($f) = @_;
	my $s = masked($f);
	(my $dir = $f) =~ s{/[^/]*$}{};
	$dir = '.' if $dir eq $f;
	while ($s =~ m{(?<![\w.\-/~\$])([\w.\-/*<>\[\]]+)}g) {
		my ($tok, $pos) = ($1, $-[1]);
		$tok =~ s/[.,:;]+$//;
		next if $tok eq '';
		if ($tok =~ m{/}) {
			my ($first) = split m{/}, $tok;
			my $known = grep { $_ eq $first } @topdirs;
			$known ||= $first ne '' && $first ne '.' &&
				$first ne '..' && -d "$dir/$first" &&
				$dir ne '.';
			next unless $known;
			next if path_exists($tok, $dir);
			finding($f, $s, $pos, 'REF_PATH',
				"$tok does not exist in the repository");
		} elsif ($tok =~ /^[\w\-]+\.(md|c|h|sh)$/) {
			next if $all_files{$tok};
			finding($f, $s, $pos, 'REF_PATH',
				"no file named $tok in the repository");
		}
	}
	# absolute paths to documents
	while ($s =~ m{(?<![\w.\-])(/[\w.\-/]+\.md)\b}g) {
		finding($f, $s, $-[1], 'REF_PATH',
			"$1 is outside the repository (documents belong in it)");
	}
}

# ---- REF_HEADING -----------------------------------------------------

my %heading;
if (-f $design) {
	for (split /\n/, slurp($design)) {
		$heading{$1} = 1 if /^#{1,6}\s+(.*?)\s*$/;
	}
}

sub check_quoted {
	my ($f, $s, $pos, $list) = @_;
	while ($list =~ /"([^"]*)"/g) {
		(my $h = $1) =~ s/\s+/ /g;
		$h =~ s/^ | $//g;
		next if $heading{$h};
		finding($f, $s, $pos, 'REF_HEADING',
			"docs/design.md has no heading \"$h\"");
	}
}

my $quoted_list = qr/"[^"]*"(?:\s*(?:,|and|or|,\s*and)\s*"[^"]*")*/;

sub check_headings {
	my ($f) = @_;
	my $s = masked($f);
	while ($s =~ m{docs/design\.md,?\s*($quoted_list)}g) {
		check_quoted($f, $s, $-[0], $1);
	}
	return unless $f eq $design;
	while ($s =~ m{\b[Ss]ee\s+($quoted_list)}g) {
		check_quoted($f, $s, $-[0], $1);
	}
}

# ---- REF_FUNCTION ----------------------------------------------------

my %defined;
for my $f (glob('src/*.[ch]'), glob('include/*.h'), glob('tests/*/*.[ch]'),
	   glob('tests/*/*/*.[ch]')) {
	my $s = slurp($f);
	$defined{$1} = 1 while $s =~ /^[ \t]*#[ \t]*define[ \t]+(\w+)/mg;
	# definitions and prototypes start in column 0
	$defined{$1} = 1 while $s =~ /^(?![#{}\/ \t*])[^\n;=(]*?\b(\w+)[ \t]*\(/mg;
}

my %allowed;
if (open(my $fh, '<', 'scripts/lint-kernel-symbols')) {
	while (<$fh>) {
		s/#.*//;
		$allowed{$1} = 1 if /^\s*(\w+)\s*$/;
	}
	close $fh;
}

my (%uses, %wanted);
for my $f (@kcode) {
	my $s = masked($f);
	while ($s =~ /(?<![\w\$])([A-Za-z_]\w*)\(\)/g) {
		my $n = $1;
		push @{$uses{$n}}, [$f, $s, $-[1]];
		$wanted{$n} = 1 unless $defined{$n} || $allowed{$n};
	}
}

my $rc_headers = 0;
if (%wanted) {
	my @dirs = $ENV{SRPT_LINT_KHEADERS} ?
		split(' ', $ENV{SRPT_LINT_KHEADERS}) :
		grep { -d } (glob('/usr/src/linux-headers-*/include'),
			     glob('/usr/src/linux-headers-*/arch/x86/include'));
	if (!@dirs) {
		print STDERR "lint: no kernel headers (/usr/src/linux-headers-*/include) to check function names against\n";
		$rc_headers = 2;
	} else {
		my $list = join '', map { "$_\n" } sort keys %wanted;
		my $tmp = "/tmp/lint-refs.$$";
		open(my $fh, '>', $tmp) or die "lint-refs: $tmp: $!\n";
		print $fh $list;
		close $fh;
		open(my $gh, '-|', 'grep', '-rhowF', '-f', $tmp, @dirs)
			or die "lint-refs: grep: $!\n";
		while (<$gh>) {
			chomp;
			delete $wanted{$_};
		}
		close $gh;
		unlink $tmp;
		for my $n (sort keys %wanted) {
			for my $u (@{$uses{$n}}) {
				finding($u->[0], $u->[1], $u->[2], 'REF_FUNCTION',
					"$n() is defined neither in the tree nor in the kernel headers (nor in scripts/lint-kernel-symbols)");
			}
		}
	}
}

check_paths($_) for (@kcode, @docs);
check_headings($_) for (@kcode, @docs, @tests);

sub by_place {
	my ($fa, $la) = $a =~ /^(.*?):(\d+):/;
	my ($fb, $lb) = $b =~ /^(.*?):(\d+):/;
	return $fa cmp $fb || $la <=> $lb || $a cmp $b;
}
print "$_\n" for sort by_place @findings;
exit 1 if @findings;
exit $rc_headers;

# ---- self-test -------------------------------------------------------

sub spew {
	my ($f, $s) = @_;
	(my $d = $f) =~ s{/[^/]*$}{};
	system('mkdir', '-p', $d) == 0 or die "lint-refs: mkdir $d\n";
	open(my $fh, '>', $f) or die "lint-refs: $f: $!\n";
	print $fh $s;
	close $fh;
}

sub self_test {
	my $t = "/tmp/lint-refs-selftest.$$";
	system('rm', '-rf', $t);
	spew("$t/docs/design.md", <<'EOT');
# Design
## Good heading
See "Good heading" and "Bad internal".
EOT
	spew("$t/README.md", <<'EOT');
See `src/a.c`, `src/missing.c`, docs/design.md and /elsewhere/notes.md.
EOT
	spew("$t/tests/vm/README.md", "cases/NNN-name.sh, lib.sh\n");
	spew("$t/tests/vm/lib.sh", "# docs/design.md, \"Good heading\"\n");
	spew("$t/tests/vm/cases/001-x.sh",
	     "# docs/design.md, \"Good\n# heading\" and \"No\n# such\"\n");
	spew("$t/include/a.h", "/* a_fn(), kernel_fn(), nowhere_fn() */\n");
	spew("$t/src/a.c", <<'EOT');
/*
 * Good: a_fn(), A_MACRO(), kernel_fn(), docs/design.md, "Good heading",
 * a.h, tests/vm/cases/NNN-name.sh. Bad: gone.h, gone-spec.md, bad_fn(),
 * docs/design.md, "Bad heading".
 */
static const char *s = "bad_in_string() docs/design.md, \"Nope\"";
#define A_MACRO(x) (x)
int a_fn(void)
{
	return 0; // src/gone.c
}
EOT
	spew("$t/kh/linux/k.h", "void kernel_fn(void);\n");
	my @want = (
		'README.md:1: REF_PATH: /elsewhere/notes.md is outside the repository (documents belong in it)',
		'README.md:1: REF_PATH: src/missing.c does not exist in the repository',
		'docs/design.md:3: REF_HEADING: docs/design.md has no heading "Bad internal"',
		'include/a.h:1: REF_FUNCTION: nowhere_fn() is defined neither in the tree nor in the kernel headers (nor in scripts/lint-kernel-symbols)',
		'src/a.c:3: REF_FUNCTION: bad_fn() is defined neither in the tree nor in the kernel headers (nor in scripts/lint-kernel-symbols)',
		'src/a.c:3: REF_PATH: no file named gone-spec.md in the repository',
		'src/a.c:3: REF_PATH: no file named gone.h in the repository',
		'src/a.c:4: REF_HEADING: docs/design.md has no heading "Bad heading"',
		'src/a.c:10: REF_PATH: src/gone.c does not exist in the repository',
		'tests/vm/cases/001-x.sh:1: REF_HEADING: docs/design.md has no heading "No such"',
	);
	local $ENV{SRPT_LINT_KHEADERS} = "$t/kh";
	my @got = `perl "$0" "$t"`;
	my $rc = $? >> 8;
	chomp @got;
	system('rm', '-rf', $t);
	my $want = join "\n", @want;
	my $got = join "\n", @got;
	return 0 if $rc == 1 && $got eq $want;
	print "lint-refs.pl --self-test: expected (exit 1):\n$want\n",
	      "got (exit $rc):\n$got\n";
	return 1;
}
