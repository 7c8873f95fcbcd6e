package k8se2e

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/pkg/controller/job"
)

// controlPlane is a real etcd, kube-apiserver and Job controller, all in
// this test process, on 127.0.0.1.
type controlPlane struct {
	config *rest.Config
	client kubernetes.Interface
}

// freePort is a free TCP port on 127.0.0.1 (etcd's configuration wants
// the port before it listens).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEtcd starts a one-member etcd in this process with its data in a
// temporary directory and returns its client URL.
func startEtcd(t *testing.T) string {
	t.Helper()
	cfg := embed.NewConfig()
	base := t.TempDir()
	cfg.Dir = filepath.Join(base, "data")
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{filepath.Join(base, "etcd.log")}
	client, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	peer, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatalf("etcd: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("etcd not ready after 1m")
	}
	return client.String()
}

// startControlPlane starts etcd, kube-apiserver (the test server the
// Kubernetes integration tests use: the real API server, authentication,
// admission and storage) and the Job controller with its informers. Its
// logs go to a file in dir.
func startControlPlane(t *testing.T, ctx context.Context, dir string) *controlPlane {
	t.Helper()
	logFile, err := os.Create(filepath.Join(dir, "control-plane.log"))
	if err != nil {
		t.Fatal(err)
	}
	klog.LogToStderr(false)
	klog.SetOutput(logFile)
	t.Cleanup(func() { klog.Flush(); logFile.Close() })

	sc := storagebackend.NewDefaultConfig("/sharebench-e2e/registry", nil)
	sc.Transport.ServerList = []string{startEtcd(t)}
	ts, err := kubeapiservertesting.StartTestServer(t, kubeapiservertesting.NewDefaultTestServerOptions(),
		[]string{"--endpoint-reconciler-type=none"}, sc)
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(ts.TearDownFn)
	client, err := kubernetes.NewForConfig(ts.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}

	// The Job controller, as kube-controller-manager runs it.
	f := informers.NewSharedInformerFactory(client, 0)
	jc, err := job.NewController(ctx, client, f.Core().V1().Pods(), f.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		t.Fatalf("job controller: %v", err)
	}
	f.Start(ctx.Done())
	go jc.Run(ctx, 2)
	t.Cleanup(f.Shutdown)
	return &controlPlane{config: ts.ClientConfig, client: client}
}

// kubeconfig writes a kubeconfig for the API server with namespace as the
// context's namespace, as a user's ~/.kube/config would be.
func (cp *controlPlane) kubeconfig(t *testing.T, path, namespace string) {
	t.Helper()
	c := cp.config
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData, TLSServerName: c.ServerName}
	cfg.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: c.BearerToken}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e", Namespace: namespace}
	cfg.CurrentContext = "e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}
