// Command play plays a scenario's plan (`dagadvisor-sim plan`) on a cluster as the workflow
// engines would: the plan's objects first, then each run at its arrival, each task's pod created
// when its parents have succeeded; kwok ends each pod after its run time. It prints what happened
// (each task's pod, node and phase) as JSON when every run has ended or on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"dagadvisor/testbed/internal/plan"
	"dagadvisor/testbed/internal/play"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the cluster's kubeconfig")
	planFile := flag.String("plan", "", "the plan to play (dagadvisor-sim plan)")
	qps := flag.Float64("qps", 100, "API requests a second (bursts of twice as many)")
	settle := flag.Duration("settle-timeout", 5*time.Minute,
		"how long the DaemonSets and Deployments may take to place their pods")
	summary := flag.String("summary", "", "where to write what happened (default: stdout)")
	skipObjects := flag.Bool("runs-only", false, "play the runs on objects created before")
	flag.Parse()
	if *planFile == "" {
		fmt.Fprintln(os.Stderr, "play: --plan is required")
		os.Exit(2)
	}
	log.SetPrefix("play: ")
	if err := run(*kubeconfig, *planFile, float32(*qps), *settle, *summary, *skipObjects); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func run(kubeconfig, planFile string, qps float32, settle time.Duration, summary string, runsOnly bool) error {
	p, err := plan.Load(planFile)
	if err != nil {
		return err
	}
	clients, err := play.Connect(kubeconfig, qps)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if !runsOnly {
		if err := play.CreateObjects(ctx, clients, p.Objects); err != nil {
			return err
		}
	}
	if err := play.WaitForServiceAccounts(ctx, clients.Typed, runNamespaces(p)); err != nil {
		return err
	}
	if err := play.WaitForWorkloads(ctx, clients.Typed, settle); err != nil {
		return fmt.Errorf("the DaemonSets and Deployments did not settle: %w", err)
	}
	log.Printf("workloads settled; playing %d runs of %s", len(p.Runs), p.Scenario)
	player := play.NewPlayer(clients, p)
	playErr := player.Play(ctx)
	if err := writeSummary(summary, player.Summary()); err != nil {
		return err
	}
	if ctx.Err() != nil { // stopped by a signal: what happened so far is the answer
		return nil
	}
	return playErr
}

func runNamespaces(p *plan.Plan) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range p.Runs {
		if !seen[r.Namespace] {
			seen[r.Namespace] = true
			out = append(out, r.Namespace)
		}
	}
	sort.Strings(out)
	return out
}

func writeSummary(path string, runs []play.RunSummary) error {
	out := os.Stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"runs": runs})
}
