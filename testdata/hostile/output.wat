;; output.wat: output-size abuse in read (output_write appends; the cap is
;; ProviderConfig.WithOutputLimit).
;;   evil:huge      one output_write of the whole 64 KiB memory, status 0.
;;                  Expect abi.ErrOutputTooLarge when the cap is below 64 KiB.
;;   evil:over      100 appends of 1 KiB each, ignoring the result, status 0.
;;                  Expect abi.ErrOutputTooLarge when the cap is below 100 KiB.
;;   evil:overstop  appends the read payload until output_write returns -2, then
;;                  returns 0. Expect abi.ErrOutputTooLarge (a host that never
;;                  returns -2 makes this spin: abi.ErrTimeout).
;;   evil:overerr   goes over the cap, then returns status 1. Expect
;;                  abi.ErrOutputTooLarge whatever the status.
;;   evil:many      100 000 appends of 1 byte (spaces, which JSON allows), then
;;                  the read payload one byte per append: about 100 KB in total.
;;                  Expect success with a 1 MiB cap, abi.ErrOutputTooLarge below.
;;   evil:split     the read payload in 3-byte appends: one valid payload.
;;                  Expect success with the text "ok".
;;   evil:pad/N     N bytes in total: spaces, then the read payload. Expect
;;                  success for N = cap and abi.ErrOutputTooLarge for N = cap+1.
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
  (data (i32.const 0x600) "evil:huge")
  (data (i32.const 0x620) "evil:overstop")
  (data (i32.const 0x640) "evil:overerr")
  (data (i32.const 0x660) "evil:over")
  (data (i32.const 0x680) "evil:many")
  (data (i32.const 0x6a0) "evil:split")
  (data (i32.const 0x6c0) "evil:pad/")
  (data (i32.const 0x6e0) " ")
  (data (i32.const 0x700) "{\"code\":\"internal\",\"message\":\"over\"}")

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

  ;; $write_in_chunks appends [p, p+n) in pieces of at most $chunk bytes.
  (func $write_in_chunks (param $p i32) (param $n i32) (param $chunk i32)
    (local $k i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $k (select (local.get $chunk) (local.get $n) (i32.lt_u (local.get $chunk) (local.get $n))))
        (drop (call $output_write (local.get $p) (local.get $k)))
        (local.set $p (i32.add (local.get $p) (local.get $k)))
        (local.set $n (i32.sub (local.get $n) (local.get $k)))
        (br $next))))

  ;; $repeat appends the $n bytes at $p, $times times, ignoring the result.
  (func $repeat (param $p i32) (param $n i32) (param $times i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $times)))
        (drop (call $output_write (local.get $p) (local.get $n)))
        (local.set $times (i32.sub (local.get $times) (i32.const 1)))
        (br $next))))

  ;; $until_refused appends the read payload until output_write returns -2.
  (func $until_refused
    (loop $next
      (br_if $next (i32.ne (call $output_write (i32.const 0x400) (call $strlen (i32.const 0x400))) (i32.const -2)))))

  ;; $atoi parses the decimal digits at $p.
  (func $atoi (param $p i32) (result i32)
    (local $n i32) (local $d i32)
    (block $done
      (loop $next
        (local.set $d (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)))
        (br_if $done (i32.gt_u (local.get $d) (i32.const 9)))
        (local.set $n (i32.add (i32.mul (local.get $n) (i32.const 10)) (local.get $d)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; $pad_to answers read with exactly $total bytes: spaces, then the payload.
  (func $pad_to (param $total i32) (result i32)
    (local $pad i32) (local $i i32)
    (local.set $pad (i32.sub (local.get $total) (call $strlen (i32.const 0x400))))
    (if (i32.lt_s (local.get $pad) (i32.const 0)) (then (local.set $pad (i32.const 0))))
    (local.set $i (i32.const 0x8000))
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_u (local.get $i) (i32.const 0x10000)))
        (i32.store8 (local.get $i) (i32.const 0x20))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $fill)))
    (block $padded
      (loop $more
        (br_if $padded (i32.eqz (local.get $pad)))
        (local.set $i (select (i32.const 0x8000) (local.get $pad) (i32.gt_u (local.get $pad) (i32.const 0x8000))))
        (drop (call $output_write (i32.const 0x8000) (local.get $i)))
        (local.set $pad (i32.sub (local.get $pad) (local.get $i)))
        (br $more)))
    (call $reply (i32.const 0x400)))

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
    (if (call $has (i32.const 0x600))  ;; evil:huge
      (then (drop (call $output_write (i32.const 0) (i32.const 0x10000))) (return (i32.const 0))))
    (if (call $has (i32.const 0x620))  ;; evil:overstop
      (then (call $until_refused) (return (i32.const 0))))
    (if (call $has (i32.const 0x640))  ;; evil:overerr
      (then (drop (call $output_write (i32.const 0) (i32.const 0x10000)))
            (drop (call $reply (i32.const 0x700))) (return (i32.const 1))))
    (if (call $has (i32.const 0x660))  ;; evil:over
      (then (call $repeat (i32.const 0x3000) (i32.const 1024) (i32.const 100)) (return (i32.const 0))))
    (if (call $has (i32.const 0x680))  ;; evil:many
      (then (call $repeat (i32.const 0x6e0) (i32.const 1) (i32.const 100000))
            (call $write_in_chunks (i32.const 0x400) (call $strlen (i32.const 0x400)) (i32.const 1))
            (return (i32.const 0))))
    (if (call $has (i32.const 0x6a0))  ;; evil:split
      (then (call $write_in_chunks (i32.const 0x400) (call $strlen (i32.const 0x400)) (i32.const 3))
            (return (i32.const 0))))
    (local.set $at (call $find (i32.const 0x6c0)))
    (if (i32.ne (local.get $at) (i32.const -1))
      (then (return (call $pad_to (call $atoi (local.get $at))))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
