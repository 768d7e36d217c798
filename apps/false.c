/* false: do nothing, unsuccessfully (status 1). */
int main(void)
{
	return 1;
}
