;; wasi_stdout.wat: writes to stdout and stderr through WASI fd_write, which the
;; host routes to the bounded guest log.
;;   evil:stdout     10 000 fd_write calls of 64 KiB each to fd 1, then to fd 2,
;;                   then answers normally. Expect success; the log stays bounded
;;                   and contains no raw escapes or invalid UTF-8.
;;   evil:stdoutbad  fd_write with an iovec pointing out of bounds; WASI answers
;;                   with an errno (or the call traps). The guest then answers
;;                   normally: expect success or abi.ErrTrap.
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))

  (memory (export "memory") 2)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")
  (data (i32.const 0x600) "evil:stdoutbad")
  (data (i32.const 0x620) "evil:stdout")
  ;; iovecs: {0x10000, 0x10000} and {0xfffffff0, 256}
  (data (i32.const 0x700) "\00\00\01\00" "\00\00\01\00")
  (data (i32.const 0x720) "\f0\ff\ff\ff" "\00\01\00\00")
  ;; page 1 starts with terminal escapes, invalid UTF-8 and a marker, then zeros
  (data (i32.const 0x10000) "EVILMARKER \1b[31mred\1b[0m \ff\fe\c0\80 \00\07\08\0d\n")

  (global $in_len (mut i32) (i32.const 0))

  ;; ---- skeleton helpers (identical in every fixture) ----

  ;; $strlen returns the length of the NUL-terminated string at $p.
  (func $strlen (param $p i32) (result i32)
    (local $q i32)
    (local.set $q (local.get $p))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (local.get $q))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $next)))
    (i32.sub (local.get $q) (local.get $p)))

  ;; $reply appends the NUL-terminated string at $p to the output; returns status 0.
  (func $reply (param $p i32) (result i32)
    (drop (call $output_write (local.get $p) (call $strlen (local.get $p))))
    (i32.const 0))

  ;; $fetch copies this call's input (at most 8 KiB) to 0x1000.
  (func $fetch (param $len i32)
    (if (i32.gt_u (local.get $len) (i32.const 0x2000))
      (then (local.set $len (i32.const 0x2000))))
    (global.set $in_len (call $input_read (i32.const 0x1000) (local.get $len))))

  ;; $find returns the address just past the first occurrence in the input of
  ;; the NUL-terminated needle at $n, or -1.
  (func $find (param $n i32) (result i32)
    (local $i i32) (local $j i32) (local $nl i32)
    (local.set $nl (call $strlen (local.get $n)))
    (block $absent
      (loop $outer
        (br_if $absent (i32.gt_s (i32.add (local.get $i) (local.get $nl)) (global.get $in_len)))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $inner
            (if (i32.eq (local.get $j) (local.get $nl))
              (then (return (i32.add (i32.const 0x1000) (i32.add (local.get $i) (local.get $nl))))))
            (br_if $mismatch
              (i32.ne
                (i32.load8_u (i32.add (i32.const 0x1000) (i32.add (local.get $i) (local.get $j))))
                (i32.load8_u (i32.add (local.get $n) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $inner)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
    (i32.const -1))

  ;; $has reports whether the input contains the needle at $n.
  (func $has (param $n i32) (result i32)
    (i32.ne (call $find (local.get $n)) (i32.const -1)))

  ;; ---- fixture-specific ----

  ;; $spam calls fd_write($fd, 64 KiB) $times times.
  (func $spam (param $fd i32) (param $times i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $times)))
        (drop (call $fd_write (local.get $fd) (i32.const 0x700) (i32.const 1) (i32.const 0x3000)))
        (local.set $times (i32.sub (local.get $times) (i32.const 1)))
        (br $next))))

  ;; ---- operations ----

  (func (export "mcpw_v1_describe") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x100)))

  (func (export "mcpw_v1_list") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x200)))

  (func (export "mcpw_v1_templates") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x300)))

  (func (export "mcpw_v1_read") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (if (call $has (i32.const 0x600))  ;; evil:stdoutbad
      (then (drop (call $fd_write (i32.const 1) (i32.const 0x720) (i32.const 1) (i32.const 0x3000)))))
    (if (call $has (i32.const 0x620))  ;; evil:stdout
      (then (call $spam (i32.const 1) (i32.const 10000)) (call $spam (i32.const 2) (i32.const 10000))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
