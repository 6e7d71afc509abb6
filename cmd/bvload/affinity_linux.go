package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// startPinned starts cmd on the CPUs listed: it is forked from a thread
// that holds that affinity for the moment, so the child and every thread
// it starts inherit it from the first instruction (its runtime sizes
// GOMAXPROCS from it).
func startPinned(cmd *exec.Cmd, cpus []int) error {
	set, err := cpuSet(cpus)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("sched_setaffinity %v: %w", cpus, err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &old); err != nil && startErr == nil {
		return fmt.Errorf("sched_setaffinity (restore): %w", err)
	}
	return startErr
}

// pinProcess moves every thread of this process onto the CPUs listed
// (threads started later inherit it from the thread that starts them) and
// sets GOMAXPROCS to match; restore puts back the affinity and GOMAXPROCS
// it found.
func pinProcess(cpus []int) (restore func() error, err error) {
	set, err := cpuSet(cpus)
	if err != nil {
		return nil, err
	}
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	procs := runtime.GOMAXPROCS(len(cpus))
	if err := setThreads(&set); err != nil {
		return nil, errors.Join(err, setThreads(&old))
	}
	return func() error {
		runtime.GOMAXPROCS(procs)
		return setThreads(&old)
	}, nil
}

// setThreads sets the affinity of every thread of the process.
func setThreads(set *unix.CPUSet) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH { // a thread that exited
			return fmt.Errorf("sched_setaffinity(thread %d): %w", tid, err)
		}
	}
	return nil
}

// onlineCPUs lists the CPUs this process may run on.
func onlineCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for i := range 1024 {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out, nil
}

func cpuSet(cpus []int) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c >= 1024 {
			return set, fmt.Errorf("no CPU %d", c)
		}
		set.Set(c)
	}
	return set, nil
}
