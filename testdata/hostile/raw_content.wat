;; raw_content.wat: read results that use content_write (ABI §6.3) rightly and
;; wrongly. evil:rawok hands "hi" as rawText, evil:rawblob two bytes as
;; rawBlob (the host makes them "//4="); the
;; others break one rule each and must be ABI violations: evil:rawbadidx
;; (an index never written), evil:rawreuse (one body used twice),
;; evil:rawunused (a body no content refers to), evil:rawutf8 (rawText that
;; is not UTF-8), evil:rawboth (rawText and text on one content),
;; evil:rawhuge (bodies past the output limit: output too large), and a
;; list with cursor evil:rawlist (content_write outside read).
;;
;; Skeleton: a copy of good.wat (memory map and helpers are documented there).
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "mcpw_v1" "content_write" (func $content_write (param i32 i32) (result i32)))

  (memory (export "memory") 1)

  (data (i32.const 0x100) "{\"name\":\"evil\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"evil\"}],\"operations\":[\"list\",\"templates\",\"read\",\"complete\"]}")
  (data (i32.const 0x200) "{\"resources\":[{\"uri\":\"evil:good\",\"name\":\"good\"}]}")
  (data (i32.const 0x300) "{\"resourceTemplates\":[{\"uriTemplate\":\"evil:{name}\",\"name\":\"evil\"}]}")
  (data (i32.const 0x400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x500) "{\"values\":[\"good\"]}")

  (data (i32.const 0x600) "evil:rawok")
  (data (i32.const 0x4000) "{\"contents\":[{\"uri\":\"evil:rawok\",\"rawText\":0}]}")
  (data (i32.const 0x620) "evil:rawbadidx")
  (data (i32.const 0x4100) "{\"contents\":[{\"uri\":\"evil:x\",\"rawText\":5}]}")
  (data (i32.const 0x640) "evil:rawreuse")
  (data (i32.const 0x4200) "{\"contents\":[{\"uri\":\"evil:x\",\"rawText\":0},{\"uri\":\"evil:x\",\"rawText\":0}]}")
  (data (i32.const 0x660) "evil:rawunused")
  (data (i32.const 0x4300) "{\"contents\":[{\"uri\":\"evil:x\",\"rawText\":0}]}")
  (data (i32.const 0x680) "evil:rawutf8")
  (data (i32.const 0x4400) "{\"contents\":[{\"uri\":\"evil:x\",\"rawText\":0}]}")
  (data (i32.const 0x6a0) "evil:rawboth")
  (data (i32.const 0x4500) "{\"contents\":[{\"uri\":\"evil:x\",\"text\":\"a\",\"rawText\":0}]}")
  (data (i32.const 0x6c0) "evil:rawhuge")
  (data (i32.const 0x4600) "{\"contents\":[{\"uri\":\"evil:x\",\"rawText\":0}]}")
  (data (i32.const 0x6e0) "evil:rawlist")
  (data (i32.const 0x700) "evil:rawblob")
  (data (i32.const 0x4800) "{\"contents\":[{\"uri\":\"evil:rawblob\",\"rawBlob\":0}]}")
  (data (i32.const 0x3f00) "hi")
  (data (i32.const 0x3f10) "\ff\fe")

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

  ;; $raw hands n bytes at p to the host.
  (func $raw (param $p i32) (param $n i32)
    (drop (call $content_write (local.get $p) (local.get $n))))

  ;; ---- operations ----

  (func (export "mcpw_v1_describe") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x100)))

  (func (export "mcpw_v1_list") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (if (call $has (i32.const 0x6e0)) ;; rawlist
      (then (call $raw (i32.const 0x3f00) (i32.const 2))))
    (call $reply (i32.const 0x200)))

  (func (export "mcpw_v1_templates") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x300)))

  (func (export "mcpw_v1_read") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (if (call $has (i32.const 0x600)) ;; rawok
      (then (call $raw (i32.const 0x3f00) (i32.const 2)) (return (call $reply (i32.const 0x4000)))))
    (if (call $has (i32.const 0x700)) ;; rawblob
      (then (call $raw (i32.const 0x3f10) (i32.const 2)) (return (call $reply (i32.const 0x4800)))))
    (if (call $has (i32.const 0x620)) ;; rawbadidx
      (then (call $raw (i32.const 0x3f00) (i32.const 2)) (return (call $reply (i32.const 0x4100)))))
    (if (call $has (i32.const 0x640)) ;; rawreuse
      (then (call $raw (i32.const 0x3f00) (i32.const 2)) (return (call $reply (i32.const 0x4200)))))
    (if (call $has (i32.const 0x660)) ;; rawunused
      (then (call $raw (i32.const 0x3f00) (i32.const 2)) (call $raw (i32.const 0x3f00) (i32.const 2))
            (return (call $reply (i32.const 0x4300)))))
    (if (call $has (i32.const 0x680)) ;; rawutf8
      (then (call $raw (i32.const 0x3f10) (i32.const 2)) (return (call $reply (i32.const 0x4400)))))
    (if (call $has (i32.const 0x6a0)) ;; rawboth
      (then (call $raw (i32.const 0x3f00) (i32.const 2)) (return (call $reply (i32.const 0x4500)))))
    (if (call $has (i32.const 0x6c0)) ;; rawhuge: the whole 64 KiB page, again and again
      (then
        (loop $more
          (br_if $more (i32.ge_s (call $content_write (i32.const 0) (i32.const 0x10000)) (i32.const 0))))
        (return (call $reply (i32.const 0x4600)))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
