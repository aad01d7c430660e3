package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcp-wasm/mcp-wasm/server/auth"
)

// Authenticate requests with static bearer tokens; a refusal is answered
// with its RFC 6750 challenge.
func ExampleAuthenticator_Authenticate() {
	cfg := auth.NewConfig().WithStaticToken("ci", "s3cret-token")
	if err := cfg.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	a := auth.New(cfg)

	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer s3cret-token")
	p, _ := a.Authenticate(r)
	fmt.Println("subject:", p.Subject)

	r.Header.Set("Authorization", "Bearer wrong")
	_, refusal := a.Authenticate(r)
	w := httptest.NewRecorder()
	a.Challenge(w, refusal)
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	// Output:
	// subject: ci
	// 401 Bearer realm="mcp-wasm", error="invalid_token", error_description="unknown token"
}
