package abi

import "encoding/base64"

func base64StdStrict() *base64.Encoding { return base64.StdEncoding.Strict() }
