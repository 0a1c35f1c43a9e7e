package play

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
)

// CreateObjects creates each object in order, as `kubectl create` would: its kind's resource is
// found through the API server's discovery, so any kind the server serves (CRDs included) works.
func CreateObjects(ctx context.Context, clients Clients, objects []unstructured.Unstructured) error {
	groups, err := restmapper.GetAPIGroupResources(clients.Typed.Discovery())
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	for i := range objects {
		if err := create(ctx, clients.Dynamic, mapper, &objects[i]); err != nil {
			return err
		}
	}
	return nil
}

func create(ctx context.Context, client dynamic.Interface, mapper meta.RESTMapper,
	object *unstructured.Unstructured) error {
	gvk := object.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, object.GetName(), err)
	}
	resource := client.Resource(mapping.Resource)
	var target dynamic.ResourceInterface = resource
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		target = resource.Namespace(object.GetNamespace())
	}
	_, err = target.Create(ctx, object, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) && gvk.Kind == "Namespace" {
		return nil // another party (a monitoring stack, the daemon's deployment) made it first
	}
	if err != nil {
		return fmt.Errorf("create %s %s/%s: %w", gvk.Kind, object.GetNamespace(), object.GetName(), err)
	}
	return nil
}

// WaitForServiceAccounts waits until each namespace has its default ServiceAccount (made by the
// controller manager): the ServiceAccount admission refuses pods before it exists.
func WaitForServiceAccounts(ctx context.Context, client kubernetes.Interface, namespaces []string) error {
	for _, ns := range namespaces {
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true,
			func(ctx context.Context) (bool, error) {
				_, err := client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return err == nil, err
			})
		if err != nil {
			return fmt.Errorf("namespace %s has no default ServiceAccount: %w", ns, err)
		}
	}
	return nil
}

// WaitForWorkloads waits until every DaemonSet and Deployment has created all its pods and the
// scheduler has placed each of them or found no room for it: the cluster is then as busy as the
// scenario's steady state before its first run arrives.
func WaitForWorkloads(ctx context.Context, client kubernetes.Interface, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, timeout, true,
		func(ctx context.Context) (bool, error) {
			ready, err := nodesReady(ctx, client)
			if err != nil || !ready {
				return false, err
			}
			created, err := workloadPodsCreated(ctx, client)
			if err != nil || !created {
				return false, err
			}
			pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for i := range pods.Items {
				if !scheduled(&pods.Items[i]) {
					return false, nil
				}
			}
			return true, nil
		})
}

// nodesReady: no node still has the taint a new node carries until it reports Ready (the
// DaemonSet controller places no pod there before).
func nodesReady(ctx context.Context, client kubernetes.Interface) (bool, error) {
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, n := range nodes.Items {
		for _, t := range n.Spec.Taints {
			if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
				return false, nil
			}
		}
	}
	return true, nil
}

func workloadPodsCreated(ctx context.Context, client kubernetes.Interface) (bool, error) {
	daemonSets, err := client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, ds := range daemonSets.Items {
		s := ds.Status
		if s.ObservedGeneration != ds.Generation || s.CurrentNumberScheduled != s.DesiredNumberScheduled {
			return false, nil
		}
	}
	deployments, err := client.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, d := range deployments.Items {
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		if d.Status.ObservedGeneration != d.Generation || d.Status.Replicas != want {
			return false, nil
		}
	}
	return true, nil
}

// scheduled: bound to a node, or judged unschedulable by the scheduler.
func scheduled(pod *corev1.Pod) bool {
	if pod.Spec.NodeName != "" {
		return true
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}
