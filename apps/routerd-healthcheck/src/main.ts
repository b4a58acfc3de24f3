// Placeholder until this program lands (see its open issue).
process.stderr.write("routerd-healthcheck: not part of this build yet\n");
process.exitCode = 1;
