sudo config load -y /etc/sonic/labctl-qos.json
sudo config interface pfc priority Ethernet0 3 on
sudo config pfcwd interval 100
sudo config pfcwd start --action drop Ethernet0 200 --restoration-time 200
