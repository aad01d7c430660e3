;; wasi_fs_loop.wat: read loops forever on one filesystem call with extreme
;; arguments (issue 26). Needs a directory grant (preopened as fd 3) holding
;; a large file named "big":
;;   evil:readdir  fd_readdir of fd 3 from cookie 0 into all of memory per call
;;   evil:pread    fd_pread of "big" into all of memory (up to 64 MiB) per call
;;   evil:path     path_open of a path as long as memory (aaaa...)
;;   evil:fds      path_open of "." until it fails, never closing; the text
;;                 of the read is how many opens succeeded (at most the
;;                 host's per-instance cap, abi/ABI.md §9.3)
;; Expect abi.ErrTimeout within the stop bound after the deadline (abi/ABI.md
;; §9.3), then a good call succeeds on a fresh instance.
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pread" (func $fd_pread (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))

  (memory (export "memory") 1)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")

  (data (i32.const 0x600) "evil:readdir")
  (data (i32.const 0x680) "evil:pread")
  (data (i32.const 0x700) "evil:path")
  (data (i32.const 0x780) "big")
  (data (i32.const 0x790) "evil:fds")
  (data (i32.const 0x7a0) ".")
  (data (i32.const 0x800) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"")
  (data (i32.const 0x880) "\"}]}")

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

  ;; $readdir lists fd 3 from cookie 0 into all of memory, forever.
  (func $readdir
    (local $n i32)
    (local.set $n (i32.sub (call $grow) (i32.const 0x10000)))
    (loop $again
      (drop (call $fd_readdir (i32.const 3) (i32.const 0x10000) (local.get $n) (i64.const 0) (i32.const 0x3000)))
      (br $again)))

  ;; $pread opens "big" and reads it from offset 0 into all of memory with
  ;; one iovec at 0x3010, forever. A failed open returns status 100+errno.
  (func $pread (result i32)
    (local $n i32) (local $e i32)
    (local.set $n (i32.sub (call $grow) (i32.const 0x10000)))
    (local.set $e (call $path_open (i32.const 3) (i32.const 0) (i32.const 0x780) (i32.const 3)
          (i32.const 0) (i64.const 6) (i64.const 0) (i32.const 0) (i32.const 0x3004)))
    (if (local.get $e) (then (return (i32.add (i32.const 100) (local.get $e)))))
    (i32.store (i32.const 0x3010) (i32.const 0x10000))
    (i32.store (i32.const 0x3014) (local.get $n))
    (loop $again
      (drop (call $fd_pread (i32.load (i32.const 0x3004)) (i32.const 0x3010) (i32.const 1) (i64.const 0) (i32.const 0x3008)))
      (br $again))
    (i32.const 0))

  ;; $path opens a path of 'a' as long as memory above 0x10000, forever.
  (func $path
    (local $n i32)
    (local.set $n (i32.sub (call $grow) (i32.const 0x10000)))
    (memory.fill (i32.const 0x10000) (i32.const 0x61) (local.get $n))
    (loop $again
      (drop (call $path_open (i32.const 3) (i32.const 0) (i32.const 0x10000) (local.get $n)
        (i32.const 0) (i64.const 6) (i64.const 0) (i32.const 0) (i32.const 0x3004)))
      (br $again)))

  ;; $fds opens "." until path_open fails and answers read with the count.
  (func $fds (result i32)
    (local $n i32) (local $at i32)
    (block $failed
      (loop $again
        (br_if $failed (call $path_open (i32.const 3) (i32.const 0) (i32.const 0x7a0) (i32.const 1)
          (i32.const 0) (i64.const 6) (i64.const 0) (i32.const 0) (i32.const 0x3004)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $again)))
    (local.set $at (i32.const 0x3100))
    (loop $digit
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.add (i32.const 0x30) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (local.get $n)))
    (drop (call $reply (i32.const 0x800)))
    (drop (call $output_write (local.get $at) (i32.sub (i32.const 0x3100) (local.get $at))))
    (call $reply (i32.const 0x880)))

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
      (then (call $readdir)))
    (if (call $has (i32.const 0x680))
      (then (return (call $pread))))
    (if (call $has (i32.const 0x700))
      (then (call $path)))
    (if (call $has (i32.const 0x790))
      (then (return (call $fds))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
