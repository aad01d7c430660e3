;; minimal.wat: the smallest well-behaved mcpw_v1 provider, used by runtime
;; unit tests and benchmarks. describe declares scheme "min" and the read
;; operation; read ignores its input and returns one fixed text content.
;; Regenerate: wat2wasm minimal.wat -o minimal.wasm
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "mcpw_v1" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"name\":\"minimal\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"min\"}],\"operations\":[\"read\"]}")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"min:a\",\"mimeType\":\"text/plain\",\"text\":\"hello\"}]}")
  (data (i32.const 2048) "read called")
  (func (export "mcpw_v1_describe") (param $n i32) (result i32)
    (drop (call $output_write (i32.const 0) (i32.const 88)))
    (i32.const 0))
  (func (export "mcpw_v1_read") (param $n i32) (result i32)
    (drop (call $input_read (i32.const 4096) (local.get $n)))
    (call $log (i32.const 0) (i32.const 2048) (i32.const 11))
    (drop (call $output_write (i32.const 1024) (i32.const 69)))
    (i32.const 0))
)
