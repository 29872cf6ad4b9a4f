#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugin auditd starts (plugins.d/secpath.conf): secpath audit stream on its standard input,
# kept records appended to /out/stream.log, its messages (reloads, counts) to /out/stream.err.
exec /usr/bin/secpath audit stream -R /ko/live.rules --output /out/stream.log --idle-ms 50 \
	2>> /out/stream.err
