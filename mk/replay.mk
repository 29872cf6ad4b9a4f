# mk/replay.mk - secpath audit replay reads gzip input through zlib (cli/cmd_audit_replay.c).
LIBS += -lz
