// Package play plays a plan on a cluster as the workflow engines would: it creates the
// scenario's objects, then each run's task pods as their parents succeed, keeping each engine's
// own object (an Argo Workflow's node status) as that engine's controller does.
package play

import (
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Clients are the API clients of one cluster.
type Clients struct {
	Typed   kubernetes.Interface
	Dynamic dynamic.Interface
}

// Connect reads a kubeconfig; the client may send qps requests a second (bursts of twice that).
func Connect(kubeconfig string, qps float32) (Clients, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return Clients{}, err
	}
	config.QPS = qps
	config.Burst = int(2 * qps)
	typed, err := kubernetes.NewForConfig(config)
	if err != nil {
		return Clients{}, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return Clients{}, err
	}
	return Clients{Typed: typed, Dynamic: dyn}, nil
}
