// The launcher's first choice of hook client (launcher-script.ts): a Perl program that uses only Perl's builtins.
// `perl -e` with no module starts in ~1.5 ms where `curl` takes ~5 ms (and `perl -MSocket` ~6 ms), and it reads
// the agent's stdin itself, so the shell forks neither `cat` nor a command substitution. Without Socket.pm the
// constants are spelt out: AF_UNIX and SOCK_STREAM are 1 on Linux, macOS and the BSDs; sockaddr_un is a native u16
// family + 108-byte path on Linux, a length byte + family byte + 104-byte path on macOS/BSD. Elsewhere it declines.
//
// Arguments: hook socket, secret file, project folder (may be empty), agent, time limit in seconds. The secret is read
// from its file here and goes only to the socket: never on an argv or into an environment. The request says when the
// client gives up (X-Agent-Rewind-Deadline, whole seconds, taken when the alarm is set, so never later than it): the
// service does nothing for it after that.
//
// What it tells the shell on stdout (the shell's side of the pipe acts on the first line):
//   nothing  it stopped before reading stdin (no secret file, no platform layout, nobody listening on the socket):
//            the Node hook reads the agent's stdin itself;
//   D        the service answered 200 / 400 / 500: the hook is over;
//   U        401 (the secret was refused): logged, over;
//   T        no answer within the limit: logged, over (the service may have taken the snapshot in time; it takes
//            none after the deadline);
//   F        any other outcome (409, 413, 503, 404, a connection cut): the stdin it read follows this line, for the
//            Node hook.

/** The program, for `perl -e`. No single quotes in it: the launcher puts it in a single-quoted shell word anyway. */
export const PERL_HOOK_CLIENT = String.raw`
my ($sock, $secf, $dir, $agent, $max) = @ARGV;
my $addr;
if ($^O eq "linux") { $addr = pack("S Z108", 1, $sock) }
elsif ($^O =~ /^(darwin|freebsd|openbsd|netbsd|dragonfly)$/) { $addr = pack("C C Z104", 2 + length($sock), 1, $sock) }
else { exit 0 }
open(my $sf, "<", $secf) or exit 0;
my $secret = <$sf>;
close $sf;
exit 0 unless defined $secret;
chomp $secret;
exit 0 if $secret eq "";
socket(my $s, 1, 1, 0) or exit 0;
$SIG{PIPE} = "IGNORE";
$SIG{ALRM} = sub { syswrite STDOUT, "T\n"; exit 0 };
alarm $max;
my $deadline = time + $max;
connect($s, $addr) or exit 0;
binmode STDIN;
binmode STDOUT;
my $in = do { local $/; <STDIN> };
$in = "" unless defined $in;
my $body = "$secret\n$dir\n$in";
my $req = "POST /hook/$agent HTTP/1.1\r\nHost: agent-rewind\r\nX-Agent-Rewind-Deadline: $deadline\r\nContent-Length: " . length($body) . "\r\nConnection: close\r\n\r\n" . $body;
undef $body;
undef $secret;
my $off = 0;
while ($off < length $req) {
  my $n = syswrite($s, $req, length($req) - $off, $off);
  last unless $n;
  $off += $n;
}
undef $req;
my $resp = "";
while (length($resp) < 65536) {
  my $n = sysread($s, my $buf, 4096);
  last unless $n;
  $resp .= $buf;
}
alarm 0;
my ($code) = $resp =~ m{^HTTP/1\.[01] (\d\d\d) };
$code = 0 unless defined $code;
my $out = ($code == 200 || $code == 400 || $code == 500) ? "D\n" : $code == 401 ? "U\n" : "F\n$in";
my $o = 0;
while ($o < length $out) {
  my $n = syswrite(STDOUT, $out, length($out) - $o, $o);
  last unless $n;
  $o += $n;
}
`;
