;; grow.wat: memory-grow bombs in read.
;;   evil:grow      grows one page at a time until memory.grow returns -1, writes
;;                  a byte into every page, then answers normally with the final
;;                  page count as the text ("ok" is replaced by e.g. "64"), so a
;;                  test can check the cap held. Expect success.
;;   evil:growbig   asks for 65536 pages and then 0xffffffff pages at once (both
;;                  must return -1), then answers like evil:grow. Expect success
;;                  with the text "1".
;;   evil:growfill  grows one page at a time until memory.grow returns -1 and
;;                  fills each new page (every byte, as a guest allocator that
;;                  uses its memory would), then answers like evil:grow. Expect
;;                  success; with the pool recycling after every call, each
;;                  call grows from one page again.
;;   evil:growtrap  grows until -1, then traps the way Go and AssemblyScript
;;                  runtimes do on out-of-memory. Expect abi.ErrMemory.
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))

  (memory (export "memory") 1)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")
  (data (i32.const 0x600) "evil:growtrap")
  (data (i32.const 0x620) "evil:growbig")
  (data (i32.const 0x640) "evil:grow")
  (data (i32.const 0x660) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"")
  (data (i32.const 0x6a0) "\"}]}")
  (data (i32.const 0x6c0) "evil:growfill")

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

  ;; $grow_all grows memory one page at a time until memory.grow fails.
  (func $grow_all
    (block $full
      (loop $more
        (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br $more))))

  ;; $grow_fill grows memory one page at a time until memory.grow fails,
  ;; filling every byte of each new page.
  (func $grow_fill
    (local $p i32)
    (block $full
      (loop $more
        (local.set $p (memory.grow (i32.const 1)))
        (br_if $full (i32.eq (local.get $p) (i32.const -1)))
        (memory.fill (i32.shl (local.get $p) (i32.const 16)) (i32.const 0x61) (i32.const 0x10000))
        (br $more))))

  ;; $touch_all stores a byte near the end of every page.
  (func $touch_all
    (local $p i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (memory.size)))
        (i32.store8 (i32.add (i32.shl (local.get $p) (i32.const 16)) (i32.const 0xfff0)) (i32.const 0x61))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next))))

  ;; $reply_pages answers read with the current page count as the text.
  (func $reply_pages (result i32)
    (local $n i32) (local $at i32)
    (local.set $n (memory.size))
    (local.set $at (i32.const 0x3010))
    (loop $digit
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.add (i32.const 0x30) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (local.get $n)))
    (drop (call $reply (i32.const 0x660)))
    (drop (call $output_write (local.get $at) (i32.sub (i32.const 0x3010) (local.get $at))))
    (call $reply (i32.const 0x6a0)))

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
    (if (call $has (i32.const 0x600))  ;; evil:growtrap
      (then (call $grow_all) (unreachable)))
    (if (call $has (i32.const 0x620))  ;; evil:growbig
      (then (drop (memory.grow (i32.const 0x10000))) (drop (memory.grow (i32.const -1)))
            (call $touch_all) (return (call $reply_pages))))
    (if (call $has (i32.const 0x6c0))  ;; evil:growfill
      (then (call $grow_fill) (return (call $reply_pages))))
    (if (call $has (i32.const 0x640))  ;; evil:grow
      (then (call $grow_all) (call $touch_all) (return (call $reply_pages))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
