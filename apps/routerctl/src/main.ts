// Placeholder until this program lands (see its open issue).
process.stderr.write("routerctl: not part of this build yet\n");
process.exitCode = 1;
