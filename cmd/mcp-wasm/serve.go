package main

import "github.com/urfave/cli/v2"

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve MCP resources from providers over stdio",
		Action: func(c *cli.Context) error {
			return failure(errNotYet)
		},
	}
}
