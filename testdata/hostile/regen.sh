#!/bin/sh
# regen.sh rebuilds every committed .wasm in testdata/hostile from its source:
# each .wat with wat2wasm, and the few non-module binaries (which no .wat can
# express) byte by byte with printf. Run it after editing a fixture and commit
# the .wat and .wasm together.
#
# It also checks that no two data segments of a fixture overlap or touch: the
# fixtures keep their strings NUL-terminated and rely on the zero byte after
# each segment.
set -eu
cd "$(dirname "$0")"

for tool in wat2wasm wasm-objdump; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "regen.sh: $tool not found: install wabt (apt-get install -y wabt)" >&2
		exit 1
	}
done

for wat in *.wat; do
	wasm="${wat%.wat}.wasm"
	wat2wasm "$wat" -o "$wasm"
	wasm-objdump -x "$wasm" | awk -v f="$wat" '
		/^ - segment\[[0-9]+\] memory=0 size=[0-9]+ - init i32=[0-9]+$/ {
			split($4, s, "="); split($7, o, "=")
			n++; start[n] = o[2] + 0; end[n] = o[2] + s[2]
		}
		END {
			for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
				if (i != j && start[j] >= start[i] && start[j] <= end[i]) {
					printf "regen.sh: %s: data segment at %d overlaps or touches the one at %d\n", f, start[j], start[i] > "/dev/stderr"
					bad = 1
				}
			exit bad
		}'
done

# component.wasm: a component-model preamble (version 0x0d, layer 1) followed by
# an empty custom section named "abc". wazero does not run components.
printf '\000asm\015\000\001\000\000\004\003abc' >component.wasm
# wasm_v2.wasm: the core magic with a binary version of 2, which does not exist.
printf '\000asm\002\000\000\000' >wasm_v2.wasm
# garbage.wasm: an ELF header and some text, not WebAssembly at all.
printf '\177ELF\002\001\001\000garbage, not wasm\n' >garbage.wasm
# truncated.wasm: the first 40 bytes of good.wasm, cut inside a section.
head -c 40 good.wasm >truncated.wasm

echo "regen.sh: rebuilt $(ls ./*.wasm | wc -l) modules"
