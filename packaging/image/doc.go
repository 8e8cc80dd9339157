// Package image builds Corrosion's container images without a Docker
// daemon: static binaries and a few base files (a non-root user, CA
// certificates) in layers on an empty base, described with
// go-containerregistry's v1 types and written as OCI archives (an OCI image
// layout in a tar that also carries Docker's manifest.json) that `docker
// load`, `podman load` and `skopeo copy oci-archive:` read. Its command is
// packaging/image/mkimage (`make images`).
package image
