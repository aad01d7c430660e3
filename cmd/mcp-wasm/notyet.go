package main

import "errors"

var errNotYet = errors.New("serve is not available in this build")
