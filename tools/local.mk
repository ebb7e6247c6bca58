# tools/local.mk: the mixsolve command.
