sudo config load -y /etc/sonic/labctl-qos.json
sudo config interface pfc priority Ethernet0 3 on
sudo config interface pfc priority Ethernet4 3 on
sudo config ecn -profile ECN_409600_1638400_20 -gmin 409600 -gmax 1638400 -gdrop 20
sudo config ecn -profile ECN_1638400_6553600_20 -gmin 1638400 -gmax 6553600 -gdrop 20
sudo config pfcwd interval 100
sudo config pfcwd start --action drop Ethernet0 Ethernet4 200 --restoration-time 200
