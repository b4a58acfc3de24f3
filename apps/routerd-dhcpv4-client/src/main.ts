// Placeholder until this program lands (see its open issue).
process.stderr.write("routerd-dhcpv4-client: not part of this build yet\n");
process.exitCode = 1;
