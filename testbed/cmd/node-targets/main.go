// Command node-targets keeps a Prometheus file_sd file of the cluster's kubelets: one target per
// Node, each the node's resource-metrics path on kwok's server, as Prometheus' Kubernetes node
// discovery would give on a real cluster (Debian's Prometheus is built without that discovery).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

type targetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the cluster's kubeconfig")
	out := flag.String("out", "", "the file_sd file to keep")
	address := flag.String("address", "", "host:port of kwok's server, which serves every node's metrics")
	flag.Parse()
	if *out == "" || *address == "" {
		fmt.Fprintln(os.Stderr, "node-targets: --out and --address are required")
		os.Exit(2)
	}
	log.SetPrefix("node-targets: ")
	if err := run(*kubeconfig, *out, *address); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

func run(kubeconfig, out, address string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	factory := informers.NewSharedInformerFactory(client, 0)
	nodes := factory.Core().V1().Nodes()
	changed := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, DeleteFunc: notify,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := write(out, address, nodes.Lister().List); err != nil {
		return err
	}
	// Bursts of new nodes are written once a second, not once a node.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	dirty := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			dirty = true
		case <-tick.C:
			if dirty {
				dirty = false
				if err := write(out, address, nodes.Lister().List); err != nil {
					return err
				}
			}
		}
	}
}

// write replaces the file whole (a rename), so Prometheus never reads half of it.
func write(out, address string, list func(labels.Selector) ([]*corev1.Node, error)) error {
	all, err := list(labels.Everything())
	if err != nil {
		return err
	}
	groups := make([]targetGroup, 0, len(all))
	for _, node := range all {
		groups = append(groups, targetGroup{Targets: []string{address}, Labels: map[string]string{
			"__metrics_path__": "/metrics/nodes/" + node.Name + "/metrics/resource",
			"instance":         node.Name,
			"node":             node.Name,
		}})
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Labels["node"] < groups[j].Labels["node"] })
	body, err := json.Marshal(groups)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".node-targets-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
