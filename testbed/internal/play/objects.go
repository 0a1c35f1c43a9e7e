package play

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
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
	if _, err := target.Create(ctx, object, metav1.CreateOptions{}); err != nil {
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

// WaitForWorkloads waits until every DaemonSet and Deployment has all its pods created and
// either running or, where the scheduler finds no room, pending: the cluster is then as busy as
// the scenario's steady state before its first run arrives.
func WaitForWorkloads(ctx context.Context, client kubernetes.Interface, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, timeout, true,
		func(ctx context.Context) (bool, error) {
			daemonSets, err := client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, ds := range daemonSets.Items {
				if !daemonSetSettled(&ds) {
					return false, nil
				}
			}
			deployments, err := client.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, d := range deployments.Items {
				if !deploymentSettled(&d) {
					return false, nil
				}
			}
			return true, nil
		})
}

func daemonSetSettled(ds *appsv1.DaemonSet) bool {
	s := ds.Status
	return s.ObservedGeneration == ds.Generation && s.CurrentNumberScheduled == s.DesiredNumberScheduled &&
		s.NumberReady == s.DesiredNumberScheduled
}

func deploymentSettled(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration == d.Generation && s.Replicas == want && s.UpdatedReplicas == want
}
