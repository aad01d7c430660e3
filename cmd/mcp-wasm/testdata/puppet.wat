;; puppet: a provider that answers every operation with the config value
;; named after it ("describe", "list", "templates", "read", "complete",
;; "changes"), so a test can make it return any payload, hostile ones
;; included, without a guest per case. A value starting with '!' is sent,
;; without the '!', with status 1 (an Error payload). A missing or empty
;; value traps.
;;
;; Regenerate puppet.wasm with: wat2wasm puppet.wat -o puppet.wasm
;; (TestPuppetWasmMatchesWat checks they agree).
(module
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "mcpw_v1" "config_get" (func $config_get (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 0) "describe")
  (data (i32.const 16) "list")
  (data (i32.const 32) "templates")
  (data (i32.const 48) "read")
  (data (i32.const 64) "complete")
  (data (i32.const 80) "changes")
  ;; answer writes the value of config key [key, key+len) from offset 1024.
  (func $answer (param $key i32) (param $len i32) (result i32)
    (local $n i32)
    (local.set $n (call $config_get (local.get $key) (local.get $len) (i32.const 1024) (i32.const 130048)))
    (if (i32.or (i32.lt_s (local.get $n) (i32.const 1)) (i32.gt_s (local.get $n) (i32.const 130048)))
      (then unreachable))
    (if (i32.eq (i32.load8_u (i32.const 1024)) (i32.const 33))
      (then
        (drop (call $output_write (i32.const 1025) (i32.sub (local.get $n) (i32.const 1))))
        (return (i32.const 1))))
    (drop (call $output_write (i32.const 1024) (local.get $n)))
    (i32.const 0))
  (func (export "mcpw_v1_describe") (param i32) (result i32) (call $answer (i32.const 0) (i32.const 8)))
  (func (export "mcpw_v1_list") (param i32) (result i32) (call $answer (i32.const 16) (i32.const 4)))
  (func (export "mcpw_v1_templates") (param i32) (result i32) (call $answer (i32.const 32) (i32.const 9)))
  (func (export "mcpw_v1_read") (param i32) (result i32) (call $answer (i32.const 48) (i32.const 4)))
  (func (export "mcpw_v1_complete") (param i32) (result i32) (call $answer (i32.const 64) (i32.const 8)))
  (func (export "mcpw_v1_changes") (param i32) (result i32) (call $answer (i32.const 80) (i32.const 7))))
