// Package progs holds the guest programs the system tests boot on gometal.
// Each subdirectory is an ordinary Go main package, built unmodified with
// GOOS=linux GOARCH=arm64 CGO_ENABLED=0; each prints what its test checks.
package progs
