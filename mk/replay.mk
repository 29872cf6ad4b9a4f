# SPDX-License-Identifier: LGPL-2.1-or-later
# mk/replay.mk - `secpath audit replay` reads gzip input through zlib (cli/cmd_audit_replay.c).
# Only the tool links it; libsecpath itself does not need zlib.
$(BIN): LIBS += -lz
