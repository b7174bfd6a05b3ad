sudo config load -y /etc/sonic/labctl-qos.json
sudo config ecn -profile ECN_409600_1638400_20 -gmin 409600 -gmax 1638400 -gdrop 20
sudo config ecn -profile ECN_1638400_6553600_20 -gmin 1638400 -gmax 6553600 -gdrop 20
