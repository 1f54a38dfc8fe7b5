//go:build tools

// Package rclone records the command built from this module.
package rclone

import (
	_ "github.com/rclone/rclone"
)
