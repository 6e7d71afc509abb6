//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

var errAffinity = errors.New("--open-venue-cpus needs Linux (sched_setaffinity)")

func startPinned(*exec.Cmd, []int) error     { return errAffinity }
func pinProcess([]int) (func() error, error) { return nil, errAffinity }
func onlineCPUs() ([]int, error)             { return nil, errAffinity }
