# Sourced by bench.sh and flows.sh: a free port for a private server, the
# CPU figures of bash's `times`, and the median of a column.

# A random port below the kernel's ephemeral range (32768+), so the clients' own
# source ports never collide with it; a taken port is retried.
pick_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

children_us() { # the "children" line of `times`: "XmY.YYYs XmY.YYYs"
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
	               printf "%d\n", t * 1e6 }' "$1"
}
children_part_us() { # children_part_us FILE N: field N of that line (1 user, 2 sys) in us
	awk -v f="$2" 'NR == 2 { split($f, a, "m"); sub("s", "", a[2]); printf "%d\n", (a[1] * 60 + a[2]) * 1e6 }' "$1"
}

# median COLUMN FILE (mean of the two middle values for an even count)
median() {
	sort -g -k"$1","$1" "$2" | awk -v c="$1" '{ v[NR] = $c }
		END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
