// Package image builds Corrosion's container images without a Docker
// daemon, with go-containerregistry: static binaries and a few base files (a
// non-root user, CA certificates) in layers on an empty base, written as OCI
// archives (an OCI image layout in a tar; one platform also carries Docker's
// manifest.json) that `docker load`, `podman load` and `skopeo copy
// oci-archive:` read. Its command is packaging/image/mkimage (`make images`).
package image
