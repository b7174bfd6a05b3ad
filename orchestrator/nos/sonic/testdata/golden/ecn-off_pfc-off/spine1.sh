sudo config load -y /etc/sonic/labctl-qos.json
