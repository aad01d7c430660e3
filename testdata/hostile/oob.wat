;; oob.wat: passes out-of-bounds or wrapping (pointer, length) pairs to the
;; host imports. read of "evil:oob/IC" picks import I and case C (digits):
;;   I  0 input_read(ptr, len)
;;      1 output_write(ptr, len)
;;      2 log(1, ptr, len)
;;      3 config_get(ptr, len, 0x3000, 256)        the key is out of bounds
;;      4 config_get("k", 1, ptr, len)              the value buffer is out of
;;                                                  bounds (grant k for this one)
;;   C  0 ptr 0xfffffff0 len 256
;;      1 ptr 0xffffffff len 2           (wraps around 4 GiB)
;;      2 ptr 0          len 0x7fffffff
;;      3 ptr 16         len -1          (0xffffffff)
;;      4 ptr -256       len 16          (0xffffff00)
;;      5 ptr 0x10000    len 1           (one past the end of the single page)
;;      6 ptr 0xfff0     len 32          (straddles the end of memory)
;; Every such call must trap (the instance is discarded): expect abi.ErrTrap.
;; If the host does not trap, the guest answers normally and the call succeeds,
;; which a test reports as a failure.
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "mcpw_v1" "log" (func $log (param i32 i32 i32)))
  (import "mcpw_v1" "config_get" (func $config_get (param i32 i32 i32 i32) (result i32)))

  (memory (export "memory") 1)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")
  (data (i32.const 0x600) "evil:oob/")
  (data (i32.const 0x620) "k")
  ;; case table: 7 x (ptr i32 le, len i32 le)
  (data (i32.const 0x700)
    "\f0\ff\ff\ff" "\00\01\00\00"
    "\ff\ff\ff\ff" "\02\00\00\00"
    "\00\00\00\00" "\ff\ff\ff\7f"
    "\10\00\00\00" "\ff\ff\ff\ff"
    "\00\ff\ff\ff" "\10\00\00\00"
    "\00\00\01\00" "\01\00\00\00"
    "\f0\ff\00\00" "\20\00\00\00")

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

  ;; $abuse passes case $c's (ptr, len) to import $i.
  (func $abuse (param $i i32) (param $c i32)
    (local $ptr i32) (local $n i32)
    (local.set $ptr (i32.load (i32.add (i32.const 0x700) (i32.shl (local.get $c) (i32.const 3)))))
    (local.set $n (i32.load (i32.add (i32.const 0x704) (i32.shl (local.get $c) (i32.const 3)))))
    (block $b4 (block $b3 (block $b2 (block $b1 (block $b0
      (br_table $b0 $b1 $b2 $b3 $b4 $b4 (local.get $i)))
      (drop (call $input_read (local.get $ptr) (local.get $n)))
      (return))
      (drop (call $output_write (local.get $ptr) (local.get $n)))
      (return))
      (call $log (i32.const 1) (local.get $ptr) (local.get $n))
      (return))
      (drop (call $config_get (local.get $ptr) (local.get $n) (i32.const 0x3000) (i32.const 256)))
      (return))
    (drop (call $config_get (i32.const 0x620) (i32.const 1) (local.get $ptr) (local.get $n))))

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
    (local $at i32)
    (call $fetch (local.get $len))
    (local.set $at (call $find (i32.const 0x600)))
    (if (i32.ne (local.get $at) (i32.const -1))
      (then (call $abuse
        (i32.sub (i32.load8_u (local.get $at)) (i32.const 0x30))
        (i32.rem_u (i32.sub (i32.load8_u (i32.add (local.get $at) (i32.const 1))) (i32.const 0x30)) (i32.const 7)))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
