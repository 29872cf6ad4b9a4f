#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# guest.sh — the plugin case in the oracle guest (sourced by /init when /ko/plugin/ exists):
# the real auditd 3.0.9 with `secpath audit stream` as its plugin (plugins.d/secpath.conf),
# the kernel recording every syscall of a workload (kernel.rules), and the plugin's rule set
# replaced RELOADS times (default 100) by SIGHUP to auditd, which passes it to its plugins.
#
# Generation g (1..RELOADS) runs set A (odd g: mkdir kept) or B (even g: rmdir kept): after the
# plugin said it reloaded, `mkdir /w/g.j; rmdir /w/g.j` three times, a chmod neither set keeps,
# then the marker `mknod /m/g p`; the next reload waits until the marker is in the plugin's
# output (every event before it is then decided).  All the while a background loop creates and
# removes symlinks in /bg (about 10 a second), kept by both sets.  Outputs in /out: audit.log
# (auditd's), stream.log and stream.err (the plugin's), reloads.txt (generation, set),
# bg.count, auditctl-*.txt; they go to the host through /init's handoff, which powers off.
O=/out
P=/ko/plugin
[ ! -f $P/env ] || . $P/env	# RELOADS, from run-plugin.sh
n=${RELOADS:-100}
step() { echo "ko-plugin: $*" > /dev/ttyS0; }
# wait_for SECONDS COMMAND...: poll every 0.05 s until COMMAND succeeds; 1 on timeout
wait_for() {
	t=$(($1 * 20)); shift
	until "$@" 2> /dev/null; do
		t=$((t - 1)); [ $t -gt 0 ] || return 1
		sleep 0.05
	done
}
reloads_said() { [ "$(grep -c ': reloaded ' $O/stream.err)" -ge "$1" ]; }
marker_out() { grep -q "name=\"/m/$1\" " $O/stream.log; }

mkdir -p /etc/audit/plugins.d /var/run /var/log/audit /w /bg /m
cp $P/auditd.conf /etc/audit/auditd.conf
cp $P/secpath.conf /etc/audit/plugins.d/secpath.conf
chmod 640 /etc/audit/auditd.conf /etc/audit/plugins.d/secpath.conf
chmod 750 /etc/audit /etc/audit/plugins.d
cp $P/a.rules /ko/live.rules
: > $O/stream.err
: > $O/stream.log

# 1. auditd (and through it the plugin), then the kernel's rules
auditctl -b 16384 > /dev/null
auditctl --backlog_wait_time 60000 > /dev/null 2>&1
auditctl -r 0 > /dev/null
syslogd -O $O/syslog.txt -S
/sbin/auditd -n > $O/auditd.err 2>&1 &	# -n: no fork; its messages go to syslog
AUD=$!
wait_for 30 sh -c "auditctl -s | grep -q '^pid $AUD\$'" || step "auditd did not register"
wait_for 30 pidof secpath > /dev/null || step "the plugin did not start"
auditctl -R $P/kernel.rules > $O/auditctl-load.txt 2>&1; echo "auditctl -R exit=$?" >> $O/auditctl-load.txt
auditctl -l > $O/auditctl-l.txt 2>&1
step "auditd $AUD, plugin $(pidof secpath), rules: $(grep -vc '^No rules' $O/auditctl-l.txt)"

# 2. the background workload, kept by both sets
(
	i=0
	while [ ! -e /tmp/stop ]; do
		i=$((i + 1))
		ln -s x /bg/$i && rm /bg/$i
		sleep 0.1
	done
	echo $i > $O/bg.count
) &
BG=$!

# 3. the reloads
: > $O/reloads.txt
g=1
while [ $g -le $n ]; do
	if [ $((g % 2)) -eq 1 ]; then set=a; else set=b; fi
	cp $P/$set.rules /ko/live.rules.new && mv /ko/live.rules.new /ko/live.rules
	kill -HUP $AUD
	wait_for 60 reloads_said $g || { step "reload $g not said"; break; }
	echo "$g $set" >> $O/reloads.txt
	for j in 1 2 3; do mkdir /w/$g.$j && rmdir /w/$g.$j; done
	chmod 755 /m	# neither set keeps it
	mknod /m/$g p
	wait_for 60 marker_out $g || { step "marker $g not written"; break; }
	g=$((g + 1))
done
step "reloads: $(wc -l < $O/reloads.txt)"
touch /tmp/stop
wait $BG

# 4. the end: the rules dropped, auditd stopped (SIGTERM passes to the plugin: it decides
#    what is open, flushes and prints its counts)
auditctl -D > /dev/null 2>&1
auditctl -s > $O/auditctl-s-after.txt 2>&1
kill -TERM $AUD
wait_for 30 sh -c "! kill -0 $AUD" || step "auditd did not stop"
wait_for 30 sh -c "! pidof secpath" || step "the plugin did not stop"

handoff guest.txt syslog.txt auditctl-load.txt auditctl-l.txt auditctl-s-after.txt auditd.err \
	reloads.txt bg.count stream.err stream.log audit.log
