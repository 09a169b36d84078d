// The kubenet CNI template (config-contract 3.3.12), kept UNRENDERED: containerd fills the `{{range}}`
// placeholders later through its CRI `conf_template`. Tab indentation, final newline. Pure data.

export const KUBENET_CNI_TEMPLATE =
  [
    '{',
    '\t"cniVersion": "0.3.1",',
    '\t"name": "kubenet",',
    '\t"plugins": [{',
    '\t\t"type": "bridge",',
    '\t\t"bridge": "cbr0",',
    '\t\t"mtu": 1500,',
    '\t\t"addIf": "eth0",',
    '\t\t"isGateway": true,',
    '\t\t"ipMasq": false,',
    '\t\t"promiscMode": true,',
    '\t\t"hairpinMode": false,',
    '\t\t"ipam": {',
    '\t\t\t"type": "host-local",',
    '\t\t\t"ranges": [{{range $i, $range := .PodCIDRRanges}}{{if $i}}, {{end}}[{"subnet": "{{$range}}"}]{{end}}],',
    '\t\t\t"routes": [{{range $i, $route := .Routes}}{{if $i}}, {{end}}{"dst": "{{$route}}"}{{end}}]',
    '\t\t}',
    '\t},',
    '\t{',
    '\t\t"type": "portmap",',
    '\t\t"capabilities": {"portMappings": true},',
    '\t\t"externalSetMarkChain": "KUBE-MARK-MASQ"',
    '\t}]',
    '}',
  ].join('\n') + '\n';
