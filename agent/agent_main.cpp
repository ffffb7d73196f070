// cassandra-lifecycle-agent: placeholder entry point until the foundation lands.
int main() { return 0; }
