;; wasi_loop.wat: read loops forever on one WASI call with extreme arguments,
;; each call alone doing work in proportion to them (issue 26):
;;   evil:random  random_get of all of memory (up to 64 MiB) per call
;;   evil:write   fd_write to stdout with every iovec memory holds (8M)
;;   evil:poll    poll_oneoff with every subscription memory holds (800K)
;; Expect abi.ErrTimeout within the stop bound after the deadline (abi/ABI.md
;; §9.3), then a good call succeeds on a fresh instance.
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))

  (memory (export "memory") 1)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")

  (data (i32.const 0x600) "evil:random")
  (data (i32.const 0x680) "evil:write")
  (data (i32.const 0x700) "evil:poll")

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

  ;; $grow grows memory to 1024 pages (64 MiB) or as far as the host lets
  ;; it, zeroes everything from 0x10000 up, and returns the memory size in
  ;; bytes: the extreme arguments below span all of it.
  (func $grow (result i32)
    (drop (memory.grow (i32.sub (i32.const 1024) (memory.size))))
    (memory.fill (i32.const 0x10000) (i32.const 0)
      (i32.sub (i32.mul (memory.size) (i32.const 0x10000)) (i32.const 0x10000)))
    (i32.mul (memory.size) (i32.const 0x10000)))

  ;; $random fills all of memory above 0x10000 with random bytes, forever.
  (func $random
    (local $n i32)
    (local.set $n (i32.sub (call $grow) (i32.const 0x10000)))
    (loop $again
      (drop (call $random_get (i32.const 0x10000) (local.get $n)))
      (br $again)))

  ;; $write writes to stdout every iovec memory holds, all {0, 0}, forever.
  (func $write
    (local $n i32)
    (local.set $n (i32.shr_u (i32.sub (call $grow) (i32.const 0x10000)) (i32.const 3)))
    (loop $again
      (drop (call $fd_write (i32.const 1) (i32.const 0x10000) (local.get $n) (i32.const 0x3000)))
      (br $again)))

  ;; $poll polls every subscription memory holds (48 bytes in, 32 out each;
  ;; zeroed: a relative realtime clock with timeout 0), forever.
  (func $poll
    (local $n i32)
    (local.set $n (i32.div_u (i32.sub (call $grow) (i32.const 0x10000)) (i32.const 80)))
    (loop $again
      (drop (call $poll_oneoff (i32.const 0x10000)
        (i32.add (i32.const 0x10000) (i32.mul (local.get $n) (i32.const 48)))
        (local.get $n) (i32.const 0x3000)))
      (br $again)))

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
    (if (call $has (i32.const 0x600))
      (then (call $random)))
    (if (call $has (i32.const 0x680))
      (then (call $write)))
    (if (call $has (i32.const 0x700))
      (then (call $poll)))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
