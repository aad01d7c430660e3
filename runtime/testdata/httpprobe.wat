;; httpprobe: a provider that calls mcpw_v1.http_fetch with the request JSON
;; the operator put in config key "req", and logs (info) what http_read
;; copies back, so tests see the raw response payload.
;;
;; read "hp:f" fetches once; "hp:n" fetches 40 times and logs the last
;; response; "hp:o" passes http_fetch an out-of-bounds request (must trap);
;; "hp:r" passes http_read an out-of-bounds buffer (must trap).
;; Rebuild: wat2wasm httpprobe.wat -o httpprobe.wasm
(module
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (import "mcpw_v1" "log" (func $log (param i32 i32 i32)))
  (import "mcpw_v1" "config_get" (func $config_get (param i32 i32 i32 i32) (result i32)))
  (import "mcpw_v1" "http_fetch" (func $http_fetch (param i32 i32) (result i32)))
  (import "mcpw_v1" "http_read" (func $http_read (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"name\":\"httpprobe\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"hp\"}],\"operations\":[\"read\"],\"requests\":{\"config\":[{\"key\":\"req\"}],\"http\":[{\"prefix\":\"http://127.0.0.1/\"}]}}\00")
  (data (i32.const 512) "{\"contents\":[{\"uri\":\"hp:x\",\"text\":\"done\"}]}\00")
  (data (i32.const 600) "req\00")

  (func $strlen (param $p i32) (result i32) (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))
  (func $puts (param $p i32)
    (drop (call $output_write (local.get $p) (call $strlen (local.get $p)))))

  (func (export "mcpw_v1_describe") (param i32) (result i32)
    (call $puts (i32.const 0))
    (i32.const 0))

  ;; The input is {"uri":"hp:X"}: X at 4096+11.
  (func (export "mcpw_v1_read") (param $n i32) (result i32)
    (local $mode i32) (local $req i32) (local $i i32)
    (drop (call $input_read (i32.const 4096) (local.get $n)))
    (local.set $mode (i32.load8_u (i32.const 4107)))
    (if (i32.eq (local.get $mode) (i32.const 111)) ;; 'o'
      (then (drop (call $http_fetch (i32.const 0xfffffff0) (i32.const 256)))))
    (local.set $req (call $config_get (i32.const 600) (i32.const 3) (i32.const 16384) (i32.const 16384)))
    (if (i32.eq (local.get $mode) (i32.const 110)) ;; 'n'
      (then
        (loop $again
          (drop (call $http_fetch (i32.const 16384) (local.get $req)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $again (i32.lt_u (local.get $i) (i32.const 39))))))
    (drop (call $http_fetch (i32.const 16384) (local.get $req)))
    (if (i32.eq (local.get $mode) (i32.const 114)) ;; 'r'
      (then (drop (call $http_read (i32.const 65000) (i32.const 1024)))))
    (call $log (i32.const 1) (i32.const 32768) (call $http_read (i32.const 32768) (i32.const 32768)))
    (call $puts (i32.const 512))
    (i32.const 0)))
