;; grantprobe: a provider that does with WASI exactly what a read URI says,
;; so tests can try every path trick against granted directories and files,
;; and read the environment, the clocks and the random source.
;;
;; read "probe:<mode><fd><path>" opens <path>, unchanged, relative to
;; preopened descriptor <fd> (a digit; 3 is the first mount) and answers its
;; first 8 KiB as text, or the error {"code":"not_found","message":"errno N"}.
;; mode r: read, following symlinks; n: read, not following them;
;;      w: create and write "ok" (must always fail: mounts are read-only);
;;      l: read, following symlinks, and leave the file open;
;;      t: open, following symlinks, leave it open and trap.
;; read "probe:!e" answers "<count>,<bytes>" of environ_sizes_get,
;;      "probe:!c" "<realtime ns>,<monotonic ns>", "probe:!r" 8 random bytes
;;      as a decimal u64.
;; Rebuild: wat2wasm grantprobe.wat -o grantprobe.wasm
(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "mcpw_v1" "input_read" (func $input_read (param i32 i32) (result i32)))
  (import "mcpw_v1" "output_write" (func $output_write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"name\":\"grantprobe\",\"version\":\"1.0.0\",\"uriSpace\":[{\"scheme\":\"probe\"}],\"operations\":[\"read\"],\"requests\":{\"filesystem\":[{\"path\":\"/data\"}],\"clock\":true,\"random\":true}}\00")
  (data (i32.const 512) "{\"contents\":[{\"uri\":\"probe:x\",\"text\":\"\00")
  (data (i32.const 600) "\"}]}\00")
  (data (i32.const 640) "{\"code\":\"not_found\",\"message\":\"errno \00")
  (data (i32.const 700) "\"}\00")
  (data (i32.const 720) "ok\00")
  (data (i32.const 730) ",\00")

  (func $strlen (param $p i32) (result i32) (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))
  (func $puts (param $p i32)
    (drop (call $output_write (local.get $p) (call $strlen (local.get $p)))))
  (func $put (param $p i32) (param $n i32)
    (drop (call $output_write (local.get $p) (local.get $n))))
  ;; putu writes v in decimal, using [2048, 2112) as scratch.
  (func $putu (param $v i64) (local $p i32)
    (local.set $p (i32.const 2112))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i64.store8 (local.get $p) (i64.add (i64.const 48) (i64.rem_u (local.get $v) (i64.const 10))))
      (local.set $v (i64.div_u (local.get $v) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $v) (i64.const 0))))
    (call $put (local.get $p) (i32.sub (i32.const 2112) (local.get $p))))
  (func $fail (param $errno i32) (result i32)
    (call $puts (i32.const 640))
    (call $putu (i64.extend_i32_u (local.get $errno)))
    (call $puts (i32.const 700))
    (i32.const 1))
  (func $answer (param $p i32) (param $n i32) (result i32)
    (call $puts (i32.const 512))
    (call $put (local.get $p) (local.get $n))
    (call $puts (i32.const 600))
    (i32.const 0))
  ;; pair answers "<a>,<b>".
  (func $pair (param $a i64) (param $b i64) (result i32)
    (call $puts (i32.const 512))
    (call $putu (local.get $a))
    (call $puts (i32.const 730))
    (call $putu (local.get $b))
    (call $puts (i32.const 600))
    (i32.const 0))

  (func (export "mcpw_v1_describe") (param i32) (result i32)
    (call $puts (i32.const 0))
    (i32.const 0))

  ;; The input is {"uri":"probe:XY..."}: X at 4110, Y at 4111, the path from
  ;; 4112 to the closing "} (2 bytes).
  (func (export "mcpw_v1_read") (param $n i32) (result i32)
    (drop (call $input_read (i32.const 4096) (local.get $n)))
    (if (i32.eq (i32.load8_u (i32.const 4110)) (i32.const 33)) ;; '!'
      (then (return (call $special (i32.load8_u (i32.const 4111))))))
    (call $file
      (i32.load8_u (i32.const 4110))
      (i32.sub (i32.load8_u (i32.const 4111)) (i32.const 48))
      (i32.const 4112)
      (i32.sub (local.get $n) (i32.const 18))))

  (func $special (param $what i32) (result i32) (local $errno i32)
    (if (i32.eq (local.get $what) (i32.const 101)) ;; 'e'
      (then
        (local.set $errno (call $environ_sizes_get (i32.const 1040) (i32.const 1044)))
        (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
        (return (call $pair (i64.load32_u (i32.const 1040)) (i64.load32_u (i32.const 1044))))))
    (if (i32.eq (local.get $what) (i32.const 99)) ;; 'c'
      (then
        (local.set $errno (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 1048)))
        (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
        (local.set $errno (call $clock_time_get (i32.const 1) (i64.const 1) (i32.const 1056)))
        (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
        (return (call $pair (i64.load (i32.const 1048)) (i64.load (i32.const 1056))))))
    (local.set $errno (call $random_get (i32.const 1064) (i32.const 8)))
    (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
    (call $pair (i64.load (i32.const 1064)) (i64.const 0)))

  ;; file opens path relative to fd: mode 'r' follows symlinks, 'n' does not,
  ;; 'w' creates and writes.
  (func $file (param $mode i32) (param $fd i32) (param $path i32) (param $len i32) (result i32)
    (local $errno i32) (local $f i32) (local $write i32) (local $keep i32)
    (local.set $write (i32.eq (local.get $mode) (i32.const 119)))
    (local.set $keep (i32.or (i32.eq (local.get $mode) (i32.const 108)) (i32.eq (local.get $mode) (i32.const 116)))) ;; 'l' or 't'
    (local.set $errno (call $path_open
      (local.get $fd)
      (i32.ne (local.get $mode) (i32.const 110))            ;; lookupflags: symlink_follow unless 'n'
      (local.get $path) (local.get $len)
      (select (i32.const 9) (i32.const 0) (local.get $write)) ;; oflags: creat|trunc for 'w'
      (select (i64.const 64) (i64.const 2) (local.get $write)) ;; rights: fd_write or fd_read
      (i64.const 0) (i32.const 0) (i32.const 1036)))
    (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
    (local.set $f (i32.load (i32.const 1036)))
    (if (i32.eq (local.get $mode) (i32.const 116)) (then unreachable)) ;; 't'
    (if (local.get $write)
      (then
        (i32.store (i32.const 1024) (i32.const 720))
        (i32.store (i32.const 1028) (i32.const 2))
        (local.set $errno (call $fd_write (local.get $f) (i32.const 1024) (i32.const 1) (i32.const 1032)))
        (drop (call $fd_close (local.get $f)))
        (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
        (return (call $answer (i32.const 720) (i32.const 2)))))
    (i32.store (i32.const 1024) (i32.const 8192))
    (i32.store (i32.const 1028) (i32.const 8192))
    (local.set $errno (call $fd_read (local.get $f) (i32.const 1024) (i32.const 1) (i32.const 1032)))
    (if (i32.eqz (local.get $keep)) (then (drop (call $fd_close (local.get $f)))))
    (if (local.get $errno) (then (return (call $fail (local.get $errno)))))
    (call $answer (i32.const 8192) (i32.load (i32.const 1032)))))
