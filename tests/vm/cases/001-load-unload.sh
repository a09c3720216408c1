# SPDX-License-Identifier: GPL-2.0
# 001-load-unload: rmmod + modprobe ib_srpt 20 times (nothing configured), then
# check that the fabric directory pins the module (rmmod refused while
# $T/srpt exists) and that removing it releases the module again.
# vmtest-timeout: 300

N=20
i=0 bad=""
while [ $i -lt $N ]; do
	if ! try rmmod ib_srpt; then
		bad="rmmod #$i: $ERR"
		break
	fi
	if [ -d /sys/module/ib_srpt ]; then
		bad="rmmod #$i: /sys/module/ib_srpt still present"
		break
	fi
	if ! try modprobe ib_srpt; then
		bad="modprobe #$i: $ERR"
		break
	fi
	[ -d /sys/module/ib_srpt ] || { bad="modprobe #$i: not loaded"; break; }
	i=$((i + 1))
done
if [ -z "$bad" ]; then
	pass load_unload_x$N
else
	fail load_unload_x$N "$bad"
	[ -d /sys/module/ib_srpt ] || modprobe ib_srpt
fi

# A reloaded module must still see the port (names recomputed at add time).
refresh_names
if try mkdir "$SRPT" && try mkdir "$SRPT/$GIDNAME"; then
	pass port_after_reload
else
	fail port_after_reload "$ERR"
fi
r=$(module_refcnt)
if [ "$r" -gt 0 ] && ! rmmod ib_srpt 2>/dev/null; then
	pass fabric_dir_pins_module "refcnt=$r"
else
	fail fabric_dir_pins_module "refcnt=$r, rmmod with $SRPT present did not fail"
	[ -d /sys/module/ib_srpt ] || modprobe ib_srpt
fi
rmdir "$SRPT/$GIDNAME" 2>/dev/null
rmdir "$SRPT" 2>/dev/null
r=$(module_refcnt)
[ "$r" = 0 ] && pass refcnt_zero || fail refcnt_zero "refcnt=$r after removing $SRPT"
if try rmmod ib_srpt && try modprobe ib_srpt; then
	pass reload_after_fabric_dir
else
	fail reload_after_fabric_dir "$ERR"
	[ -d /sys/module/ib_srpt ] || modprobe ib_srpt
fi
