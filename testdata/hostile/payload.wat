;; payload.wat: read answers these triggers with a bad payload or status.
;; Expect abi.ErrViolation for each (the instance is discarded), except the
;; three domain errors at the end, which map to abi.ErrNotFound,
;; abi.ErrInvalidParams and abi.ErrProviderInternal and keep the instance.
;; Guest strings carry EVILMARKER: no error message may contain it, nor the
;; invalid bytes.
;;
;;   evil:utf8        invalid UTF-8 in text
;;   evil:surrogate   lone UTF-16 surrogate escape
;;   evil:ctltext     raw control character in a string
;;   evil:b64pad      base64 with non-zero padding bits
;;   evil:b64         blob that is not base64
;;   evil:json        truncated JSON
;;   evil:bom         byte order mark before the JSON
;;   evil:trailing    a second JSON value after the payload
;;   evil:dup         duplicate key
;;   evil:case        key differing only in case
;;   evil:unknown     unknown key
;;   evil:type        wrong JSON type
;;   evil:bigint      number out of range
;;   evil:deep        nesting deeper than 16
;;   evil:both        both text and blob
;;   evil:neither     neither text nor blob
;;   evil:empty       empty contents
;;   evil:null        JSON null
;;   evil:noout       status 0 with no output
;;   evil:status7     a good payload with status 7
;;   evil:statusneg   a good payload with status -1
;;   evil:errcode     status 1 with a bogus error code
;;   evil:errjunk     status 1 with malformed JSON
;;   evil:errnone     status 1 with no output
;;   evil:errbadutf8  status 1 with invalid UTF-8 in the message
;;   evil:notfound    domain error not_found
;;   evil:badparams   domain error invalid_params
;;   evil:internal    domain error internal
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
  (data (i32.const 0x600) "evil:utf8")
  (data (i32.const 0x4000) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"EVILMARKER\ff\fe\c0\80\"}]}")
  (data (i32.const 0x620) "evil:surrogate")
  (data (i32.const 0x4100) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"EVILMARKER\\ud800\"}]}")
  (data (i32.const 0x640) "evil:ctltext")
  (data (i32.const 0x4200) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"EVILMARKER\01\"}]}")
  (data (i32.const 0x660) "evil:b64pad")
  (data (i32.const 0x4300) "{\"contents\":[{\"uri\":\"evil:good\",\"blob\":\"QR==\"}]}")
  (data (i32.const 0x680) "evil:b64")
  (data (i32.const 0x4400) "{\"contents\":[{\"uri\":\"evil:good\",\"blob\":\"EVILMARKER!!\"}]}")
  (data (i32.const 0x6a0) "evil:json")
  (data (i32.const 0x4500) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"EVILMARKER\"")
  (data (i32.const 0x6c0) "evil:bom")
  (data (i32.const 0x4600) "\ef\bb\bf{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x6e0) "evil:trailing")
  (data (i32.const 0x4700) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}{}")
  (data (i32.const 0x700) "evil:dup")
  (data (i32.const 0x4800) "{\"contents\":[{\"uri\":\"evil:good\",\"uri\":\"evil:good\",\"text\":\"EVILMARKER\"}]}")
  (data (i32.const 0x720) "evil:case")
  (data (i32.const 0x4900) "{\"contents\":[{\"URI\":\"evil:good\",\"text\":\"EVILMARKER\"}]}")
  (data (i32.const 0x740) "evil:unknown")
  (data (i32.const 0x4a00) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"EVILMARKER\",\"evil\":true}]}")
  (data (i32.const 0x760) "evil:type")
  (data (i32.const 0x4b00) "{\"contents\":\"EVILMARKER\"}")
  (data (i32.const 0x780) "evil:bigint")
  (data (i32.const 0x4c00) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}],\"cache\":{\"ttlMs\":1e400,\"scope\":\"public\"}}")
  (data (i32.const 0x7a0) "evil:deep")
  (data (i32.const 0x4d00) "{\"contents\":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}")
  (data (i32.const 0x7c0) "evil:both")
  (data (i32.const 0x4e00) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\",\"blob\":\"b2s=\"}]}")
  (data (i32.const 0x7e0) "evil:neither")
  (data (i32.const 0x4f00) "{\"contents\":[{\"uri\":\"evil:good\"}]}")
  (data (i32.const 0x800) "evil:empty")
  (data (i32.const 0x5000) "{\"contents\":[]}")
  (data (i32.const 0x820) "evil:null")
  (data (i32.const 0x5100) "null")
  (data (i32.const 0x840) "evil:noout")
  (data (i32.const 0x860) "evil:status7")
  (data (i32.const 0x5300) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x880) "evil:statusneg")
  (data (i32.const 0x5400) "{\"contents\":[{\"uri\":\"evil:good\",\"text\":\"ok\"}]}")
  (data (i32.const 0x8a0) "evil:errcode")
  (data (i32.const 0x5500) "{\"code\":\"teapot\",\"message\":\"EVILMARKER\"}")
  (data (i32.const 0x8c0) "evil:errjunk")
  (data (i32.const 0x5600) "EVILMARKER is not JSON")
  (data (i32.const 0x8e0) "evil:errnone")
  (data (i32.const 0x900) "evil:errbadutf8")
  (data (i32.const 0x5800) "{\"code\":\"not_found\",\"message\":\"EVILMARKER\ff\"}")
  (data (i32.const 0x920) "evil:notfound")
  (data (i32.const 0x5900) "{\"code\":\"not_found\",\"message\":\"no such resource\"}")
  (data (i32.const 0x940) "evil:badparams")
  (data (i32.const 0x5a00) "{\"code\":\"invalid_params\",\"message\":\"bad uri\"}")
  (data (i32.const 0x960) "evil:internal")
  (data (i32.const 0x5b00) "{\"code\":\"internal\",\"message\":\"backend down\"}")

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

  ;; $answer appends the NUL-terminated string at $p (if $p is not 0) and
  ;; returns $status.
  (func $answer (param $p i32) (param $status i32) (result i32)
    (if (local.get $p)
      (then (drop (call $output_write (local.get $p) (call $strlen (local.get $p))))))
    (local.get $status))

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
    (if (call $has (i32.const 0x600))  ;; evil:utf8
      (then (return (call $answer (i32.const 0x4000) (i32.const 0)))))
    (if (call $has (i32.const 0x620))  ;; evil:surrogate
      (then (return (call $answer (i32.const 0x4100) (i32.const 0)))))
    (if (call $has (i32.const 0x640))  ;; evil:ctltext
      (then (return (call $answer (i32.const 0x4200) (i32.const 0)))))
    (if (call $has (i32.const 0x660))  ;; evil:b64pad
      (then (return (call $answer (i32.const 0x4300) (i32.const 0)))))
    (if (call $has (i32.const 0x680))  ;; evil:b64
      (then (return (call $answer (i32.const 0x4400) (i32.const 0)))))
    (if (call $has (i32.const 0x6a0))  ;; evil:json
      (then (return (call $answer (i32.const 0x4500) (i32.const 0)))))
    (if (call $has (i32.const 0x6c0))  ;; evil:bom
      (then (return (call $answer (i32.const 0x4600) (i32.const 0)))))
    (if (call $has (i32.const 0x6e0))  ;; evil:trailing
      (then (return (call $answer (i32.const 0x4700) (i32.const 0)))))
    (if (call $has (i32.const 0x700))  ;; evil:dup
      (then (return (call $answer (i32.const 0x4800) (i32.const 0)))))
    (if (call $has (i32.const 0x720))  ;; evil:case
      (then (return (call $answer (i32.const 0x4900) (i32.const 0)))))
    (if (call $has (i32.const 0x740))  ;; evil:unknown
      (then (return (call $answer (i32.const 0x4a00) (i32.const 0)))))
    (if (call $has (i32.const 0x760))  ;; evil:type
      (then (return (call $answer (i32.const 0x4b00) (i32.const 0)))))
    (if (call $has (i32.const 0x780))  ;; evil:bigint
      (then (return (call $answer (i32.const 0x4c00) (i32.const 0)))))
    (if (call $has (i32.const 0x7a0))  ;; evil:deep
      (then (return (call $answer (i32.const 0x4d00) (i32.const 0)))))
    (if (call $has (i32.const 0x7c0))  ;; evil:both
      (then (return (call $answer (i32.const 0x4e00) (i32.const 0)))))
    (if (call $has (i32.const 0x7e0))  ;; evil:neither
      (then (return (call $answer (i32.const 0x4f00) (i32.const 0)))))
    (if (call $has (i32.const 0x800))  ;; evil:empty
      (then (return (call $answer (i32.const 0x5000) (i32.const 0)))))
    (if (call $has (i32.const 0x820))  ;; evil:null
      (then (return (call $answer (i32.const 0x5100) (i32.const 0)))))
    (if (call $has (i32.const 0x840))  ;; evil:noout
      (then (return (call $answer (i32.const 0x0) (i32.const 0)))))
    (if (call $has (i32.const 0x860))  ;; evil:status7
      (then (return (call $answer (i32.const 0x5300) (i32.const 7)))))
    (if (call $has (i32.const 0x880))  ;; evil:statusneg
      (then (return (call $answer (i32.const 0x5400) (i32.const -1)))))
    (if (call $has (i32.const 0x8a0))  ;; evil:errcode
      (then (return (call $answer (i32.const 0x5500) (i32.const 1)))))
    (if (call $has (i32.const 0x8c0))  ;; evil:errjunk
      (then (return (call $answer (i32.const 0x5600) (i32.const 1)))))
    (if (call $has (i32.const 0x8e0))  ;; evil:errnone
      (then (return (call $answer (i32.const 0x0) (i32.const 1)))))
    (if (call $has (i32.const 0x900))  ;; evil:errbadutf8
      (then (return (call $answer (i32.const 0x5800) (i32.const 1)))))
    (if (call $has (i32.const 0x920))  ;; evil:notfound
      (then (return (call $answer (i32.const 0x5900) (i32.const 1)))))
    (if (call $has (i32.const 0x940))  ;; evil:badparams
      (then (return (call $answer (i32.const 0x5a00) (i32.const 1)))))
    (if (call $has (i32.const 0x960))  ;; evil:internal
      (then (return (call $answer (i32.const 0x5b00) (i32.const 1)))))
    (call $reply (i32.const 0x400)))

  (func (export "mcpw_v1_complete") (param $len i32) (result i32)
    (call $fetch (local.get $len))
    (call $reply (i32.const 0x500)))
)
