#!/bin/busybox sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# PID 1 of the oracle guest (installed as /init in the initramfs).
# Inputs:  /ko/scenario (steps; lines starting with '!' are setup shell), /ko/rules (auditctl -R).
# Outputs: sections "=== ko-begin NAME ===" ... "=== ko-end NAME ===" on /dev/ttyS1, then power off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /out
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
O=/out
step() { echo "ko-init: $*" > /dev/ttyS0; }
# handoff FILE...: the files of $O to the host on the second serial port (collect.sh splits
# them), then power off
handoff() {
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	{
		for f in "$@"; do
			echo "=== ko-begin $f ==="
			cat $O/$f 2>/dev/null
			echo "=== ko-end $f ==="
		done
		echo "=== ko-done ==="
	} > /dev/ttyS1
	sync
	poweroff -f
}

{
	echo "kernel=$(uname -r)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "loginuid_of_init=$(cat /proc/self/loginuid)"
	grep -h . /proc/sys/kernel/printk_ratelimit 2>/dev/null | sed 's/^/printk_ratelimit=/'
} > $O/guest.txt
# the plugin case (run-plugin.sh): the real auditd and secpath as its plugin; it ends the guest
[ -f /ko/plugin/guest.sh ] && . /ko/plugin/guest.sh

# 1. our audit daemon: every record the kernel emits lands in $O/audit.log
/bin/ko auditd $O/audit.log 2> $O/auditd.err &
KOD=$!
i=0
until auditctl -s 2>/dev/null | grep -q "^pid $KOD\$"; do
	i=$((i + 1)); [ $i -gt 100 ] && { step "auditd did not register"; break; }
	sleep 0.1
done
auditctl -b 16384 > /dev/null
auditctl --backlog_wait_time 60000 > /dev/null 2>&1
auditctl -r 0 > /dev/null

# 2. scenario setup (files, directories) before the rules load, so -w sees what exists
grep '^!' /ko/scenario | sed 's/^!//' > /tmp/setup.sh
sh -e /tmp/setup.sh > $O/setup.txt 2>&1; echo "setup exit=$?" >> $O/setup.txt

# 3. the rules, through the real auditctl. `auditctl -R` reports errors to syslog only (busybox
#    syslogd catches them); it stops at the first bad line unless the file has a `-c` or `-i` line.
syslogd -O $O/syslog.txt -S
sleep 0.2
#    Rule templates: @INO:PATH@ becomes the inode number of PATH after the setup.
cp /ko/rules $O/rules.loaded
for t in $(grep -o '@INO:[^@]*@' /ko/rules | sort -u); do
	p=${t#@INO:}; p=${p%@}
	sed -i "s|$t|$(stat -c %i "$p")|g" $O/rules.loaded
done
#    which -w/-W paths are directories at load time (auditctl turns those into dir= rules)
awk '{ for (i = 1; i < NF; i++) if ($i == "-w" || $i == "-W") print $(i + 1) }' $O/rules.loaded |
	while read -r p; do [ -d "$p" ] && echo "$p"; done > $O/dirs.txt
#    the filesystem the rules are resolved against, dumped before they load (not audited)
/bin/ko fsdump / > $O/fs.txt 2>&1
auditctl -R $O/rules.loaded > $O/auditctl-load.txt 2>&1; echo "auditctl -R exit=$?" >> $O/auditctl-load.txt
sleep 0.2
grep auditctl $O/syslog.txt >> $O/auditctl-load.txt 2>/dev/null
auditctl -l > $O/auditctl-l.txt 2>&1
auditctl -s > $O/auditctl-s-before.txt 2>&1
step "rules loaded: $(grep -vc '^No rules' $O/auditctl-l.txt)"

# 4. the workload
if [ -f /ko/workload ]; then
	# an `audit run` case: the workload runs once, under secpath's tracer, while the kernel
	# audits it with the same rules (the login uid set first, as a login would)
	(
		echo 1000 > /proc/self/loginuid
		exec /usr/bin/secpath audit run -R $O/rules.loaded --output $O/secpath.log \
			--record $O/secpath.rec --summary $O/secpath.sum --json -- sh /ko/workload
	) > $O/run.err 2>&1 &
	echo "secpath_pid=$!" > $O/secpath.pid
	wait $!; echo "audit run exit=$?" >> $O/run.err
	base64 $O/secpath.rec > $O/secpath.rec.b64
	: > $O/workload.tsv
else
	/bin/ko run /ko/scenario $O/workload.tsv > $O/run.err 2>&1; echo "ko run exit=$?" >> $O/run.err
fi
auditctl -s > $O/auditctl-s-after.txt 2>&1
step "workload done: $(($(wc -l < $O/workload.tsv) - 1)) syscalls"

# 5. flush: drop the rules (so no filter can hide the marker), send the marker, wait for the daemon
auditctl -D > /dev/null 2>&1
auditctl -m "ko-oracle-end" > /dev/null 2>&1
i=0
while kill -0 $KOD 2>/dev/null; do
	i=$((i + 1))
	[ $i -eq 50 ] && kill $KOD
	[ $i -gt 150 ] && { step "auditd did not stop"; break; }
	sleep 0.1
done

# 6. hand everything to the host on the second serial port
handoff guest.txt setup.txt rules.loaded dirs.txt fs.txt auditctl-load.txt auditctl-l.txt \
	auditctl-s-before.txt auditctl-s-after.txt run.err auditd.err workload.tsv audit.log \
	secpath.pid secpath.log secpath.sum secpath.rec.b64
