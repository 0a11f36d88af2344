{S[i,j,k]->PE[i%4,j%4]}
